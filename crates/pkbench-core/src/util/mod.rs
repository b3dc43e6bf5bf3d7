//! Small helpers with no better home.

pub mod pick;
pub mod time;
