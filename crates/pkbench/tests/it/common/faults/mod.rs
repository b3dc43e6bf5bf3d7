//! Helpers of the fault tests: a run with a fault injected and its checks ([`run`]), a server
//! the test owns for `--url` ([`url_server`]), the superuser's side door into a server
//! ([`admin`]), and a TCP proxy that cuts connections ([`proxy`]).

pub mod admin;
pub mod proxy;
pub mod run;
pub mod url_server;
