//! Small helpers with no better home.

pub mod input;
pub mod pick;
pub mod time;
