//! The PostgreSQL session doctor works in: one READ ONLY transaction, checked.

use crate::Error;
use crate::engines::wire::connect::ConnectOptions;
use crate::engines::wire::postgres_target::PgTarget;
use postgres::Client;

/// A connection whose every statement runs inside one READ ONLY transaction.
pub struct ReadOnlySession {
    pub(super) client: Client,
    pub(super) target: String,
    pub(super) read_only: String,
    /// Whether and how the connection is encrypted, for the report's notes.
    pub(super) connection: Option<String>,
}

impl ReadOnlySession {
    /// Connects to `url` and opens the read-only transaction. Errors name the URL with its
    /// password hidden.
    pub fn connect(url: &str, options: &ConnectOptions) -> Result<Self, Error> {
        let mut target = PgTarget::from_url(url, options)?;
        target.config_mut().application_name("pkbench doctor");
        let (client, tls) = target.connect_first("could not connect to")?;
        let mut session = Self::start(client, target.shown().to_string())?;
        session.connection = Some(tls.describe());
        Ok(session)
    }

    fn start(mut client: Client, target: String) -> Result<Self, Error> {
        // Reads wait at most 5 s for a lock (an ALTER TABLE in progress), never forever.
        client
            .batch_execute(
                "SET default_transaction_read_only = on; SET lock_timeout = '5s'; \
                 BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
            )
            .map_err(|e| Error::postgres("could not start a read-only transaction", e))?;
        let row = client
            .query_one(
                "SELECT current_setting('transaction_read_only'), current_setting('default_transaction_read_only')",
                &[],
            )
            .map_err(|e| Error::postgres("could not read transaction_read_only", e))?;
        let (tx, default): (String, String) = (row.get(0), row.get(1));
        if tx != "on" {
            return Err(Error::InvalidInput(format!("{target}: the transaction is not read-only; doctor stops")));
        }
        let read_only = format!(
            "one READ ONLY transaction (transaction_read_only = {tx}, default_transaction_read_only = {default})"
        );
        Ok(ReadOnlySession { client, target, read_only, connection: None })
    }

    /// The client, inside the read-only transaction (tests use it to show writes are refused).
    pub fn client(&mut self) -> &mut Client {
        &mut self.client
    }
}

impl Drop for ReadOnlySession {
    fn drop(&mut self) {
        let _ = self.client.batch_execute("ROLLBACK");
    }
}
