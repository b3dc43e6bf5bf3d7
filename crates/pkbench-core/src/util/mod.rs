//! Small helpers with no better home.

pub mod folder;
pub mod input;
pub mod pick;
pub mod text;
pub mod time;
