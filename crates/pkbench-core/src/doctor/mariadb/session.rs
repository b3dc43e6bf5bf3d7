//! The MariaDB/MySQL session doctor works in: one READ ONLY transaction, checked.

use crate::Error;
use crate::engines::wire::connect::ConnectOptions;
use crate::engines::wire::mysql_target::MyTarget;
use mysql::Conn;
use mysql::prelude::Queryable;

/// A connection whose statements run inside one READ ONLY transaction.
pub struct ReadOnlySession {
    pub(super) conn: Conn,
    pub(super) target: String,
    pub(super) read_only: String,
    /// Whether and how the connection is encrypted, for the report's notes.
    pub(super) connection: Option<String>,
}

pub(super) fn my(context: &str) -> impl Fn(mysql::Error) -> Error + '_ {
    move |e| Error::mariadb(context, e)
}

impl ReadOnlySession {
    /// Connects to a `mysql://` or `mariadb://` URL and opens the read-only transaction.
    pub fn connect(url: &str, options: &ConnectOptions) -> Result<Self, Error> {
        let mut target = MyTarget::from_url(url, options)?;
        let (conn, tls) = target.connect_first("could not connect to")?;
        let mut session = Self::start(conn, target.shown().to_string())?;
        session.connection = Some(tls.describe());
        Ok(session)
    }

    /// Makes `conn`'s transactions read-only and opens one.
    pub fn start(mut conn: Conn, target: String) -> Result<Self, Error> {
        conn.query_drop("SET SESSION TRANSACTION READ ONLY").map_err(my("could not make the session read-only"))?;
        // Reads wait at most 5 s for a metadata lock (an ALTER TABLE in progress).
        conn.query_drop("SET SESSION lock_wait_timeout = 5").map_err(my("could not set lock_wait_timeout"))?;
        conn.query_drop("START TRANSACTION READ ONLY, WITH CONSISTENT SNAPSHOT")
            .map_err(my("could not start a read-only transaction"))?;
        // MariaDB and MySQL 5.7 name it tx_read_only; MySQL 8 transaction_read_only.
        let flag: Option<i64> = conn
            .query_first("SELECT @@session.tx_read_only")
            .or_else(|_| conn.query_first("SELECT @@session.transaction_read_only"))
            .map_err(my("could not read tx_read_only"))?;
        if flag != Some(1) {
            return Err(Error::InvalidInput(format!("{target}: the session is not read-only; doctor stops")));
        }
        let read_only = "one START TRANSACTION READ ONLY (SET SESSION TRANSACTION READ ONLY: tx_read_only = 1)".into();
        Ok(ReadOnlySession { conn, target, read_only, connection: None })
    }

    /// The connection, inside the read-only transaction (tests use it to show writes are refused).
    pub fn conn(&mut self) -> &mut Conn {
        &mut self.conn
    }
}

impl Drop for ReadOnlySession {
    fn drop(&mut self) {
        let _ = self.conn.query_drop("ROLLBACK");
    }
}
