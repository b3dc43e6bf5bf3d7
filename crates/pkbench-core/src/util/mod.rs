//! Small helpers with no better home.

pub mod time;
