//! Facts about the engines that both an engine driver and a page model rely on: limits and
//! rules of the servers themselves, as constants and pure functions. Nothing here connects to a
//! database or needs a driver, so [`predict`](crate::predict) reads them without depending on
//! [`engines`](crate::engines).

pub mod innodb;
pub mod myrocks;
