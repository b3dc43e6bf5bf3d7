//! MariaDB SQL of the application workload: InnoDB `users` and `orders` keyed by the strategy
//! as the insert-growth table is (auto-increment, `BINARY(16)`, `CHAR(36)`, `UUID`, server
//! default), with a foreign key orders → users on the keyset join index `(user_id, id)`.

use super::schema::{column_type, primary_key_column};
use crate::Error;
use crate::engines::app::AppSql;
use crate::strategy::{KeySource, SecondaryLookup, Strategy};

/// Renders the application schema for `strategy` inside database `db`, with positional `?`
/// placeholders in the order [`AppSql`] lists its parameters (`join_next` takes the last user id
/// twice, for its spelled-out row comparison).
pub fn render(strategy: &Strategy, db: &str) -> Result<AppSql, Error> {
    super::schema::render(strategy, db)?; // same refusals as the benchmark table
    let pk_type = column_type(strategy.primary.storage);
    let pk_column = primary_key_column(strategy)?;
    let client_primary = matches!(strategy.primary.source, KeySource::Client(_));
    let sec = strategy.secondary;
    let ext = sec.map_or(String::new(), |s| format!("ext_id {} NOT NULL, ", column_type(s.storage)));
    let ext_key = match sec {
        Some(s) if s.lookup == SecondaryLookup::UniqueIndex => ", UNIQUE KEY ext_id (ext_id)",
        _ => "",
    };
    let mut create = vec![
        format!(
            "CREATE TABLE {db}.users ({pk_column}, {ext}name VARCHAR(64) NOT NULL, email VARCHAR(128) NOT NULL, \
             age BIGINT NOT NULL, created_at BIGINT NOT NULL{ext_key}) ENGINE=InnoDB"
        ),
        // (user_id, id): a user's orders in key order, so keyset pages need no sort; it also
        // serves the foreign key.
        format!(
            "CREATE TABLE {db}.orders ({pk_column}, {ext}user_id {pk_type} NOT NULL, amount BIGINT NOT NULL, \
             created_at BIGINT NOT NULL{ext_key}, KEY orders_user_id (user_id, id), \
             CONSTRAINT orders_user FOREIGN KEY (user_id) REFERENCES {db}.users (id)) ENGINE=InnoDB"
        ),
    ];
    let mut counted = vec![("users", "users"), ("orders", "orders")];
    let (mut map_users, mut map_orders, mut delete_order_map) = (None, None, None);
    if let Some(s) = sec.filter(|s| s.lookup == SecondaryLookup::MappingTable) {
        for (table, slot) in [("users_map", &mut map_users), ("orders_map", &mut map_orders)] {
            create.push(format!(
                "CREATE TABLE {db}.{table} (ext_id {} NOT NULL PRIMARY KEY, id {pk_type} NOT NULL) ENGINE=InnoDB",
                column_type(s.storage)
            ));
            *slot = Some(format!("INSERT INTO {db}.{table} (ext_id, id) VALUES (?, ?)"));
        }
        delete_order_map = Some(format!("DELETE FROM {db}.orders_map WHERE ext_id = ?"));
        counted.extend([("users_map", "users"), ("orders_map", "orders")]);
    }
    let mut key_cols = Vec::new();
    if client_primary {
        key_cols.push("id");
    }
    if sec.is_some() {
        key_cols.push("ext_id");
    }
    let returning = if client_primary { "" } else { " RETURNING id" };
    let insert = |table: &str, rest: &[&str]| {
        let cols: Vec<&str> = key_cols.iter().copied().chain(rest.iter().copied()).collect();
        let marks = vec!["?"; cols.len()].join(", ");
        format!("INSERT INTO {db}.{table} ({}) VALUES ({marks}){returning}", cols.join(", "))
    };
    // How the application finds a user's primary key from its public id.
    let (user_where, user_pk) = match sec.map(|s| s.lookup) {
        None => ("id = ?".to_string(), "?".to_string()),
        Some(SecondaryLookup::MappingTable) => {
            let pk = format!("(SELECT id FROM {db}.users_map WHERE ext_id = ?)");
            (format!("id = {pk}"), pk)
        }
        Some(_) => ("ext_id = ?".to_string(), format!("(SELECT id FROM {db}.users WHERE ext_id = ?)")),
    };
    // Left to itself the optimizer reads users first and sorts the join in a temporary table:
    // orders must lead, in the order of its (user_id, id) index, for pages to need no sort.
    let join = format!(
        "SELECT o.user_id, u.name, o.id, o.amount FROM {db}.orders o FORCE INDEX (orders_user_id) \
         STRAIGHT_JOIN {db}.users u ON u.id = o.user_id"
    );
    Ok(AppSql {
        create,
        insert_user: insert("users", &["name", "email", "age", "created_at"]),
        insert_order: insert("orders", &["user_id", "amount", "created_at"]),
        map_users,
        map_orders,
        client_primary,
        average_age: format!("SELECT AVG(CAST(age AS DOUBLE)) FROM {db}.users"),
        user_by_public: format!("SELECT id, name, email, age, created_at FROM {db}.users WHERE {user_where}"),
        orders_of_user: format!("SELECT id, amount, created_at FROM {db}.orders WHERE user_id = {user_pk}"),
        join_first: format!("{join} ORDER BY o.user_id, o.id LIMIT ?"),
        join_next: format!(
            "{join} WHERE o.user_id > ? OR (o.user_id = ? AND o.id > ?) ORDER BY o.user_id, o.id LIMIT ?"
        ),
        touch_user: format!("UPDATE {db}.users SET created_at = ? WHERE {user_where}"),
        delete_order: format!("DELETE FROM {db}.orders WHERE id = ?"),
        delete_order_map,
        counted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::find;

    fn sql(name: &str) -> AppSql {
        render(find(name).unwrap(), "d").unwrap()
    }

    #[test]
    fn keys_map_as_in_the_benchmark_table() {
        let int = sql("int");
        assert!(int.create[0].starts_with("CREATE TABLE d.users (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"));
        assert!(int.create[1].contains("KEY orders_user_id (user_id, id), CONSTRAINT orders_user FOREIGN KEY"));
        assert!(int.insert_user.ends_with("VALUES (?, ?, ?, ?) RETURNING id"));
        assert!(sql("uuid4").create[0].contains("(id BINARY(16) NOT NULL PRIMARY KEY,"));
        assert!(sql("uuid4-text").create[1].contains("user_id CHAR(36) NOT NULL"));
        assert!(sql("uuid4-mariadb-uuid").create[0].contains("(id UUID NOT NULL PRIMARY KEY,"));
        assert!(sql("uuid1-server").insert_order.ends_with("RETURNING id"));
        let err = render(find("uuid4-rowid").unwrap(), "d").unwrap_err().to_string();
        assert!(err.contains("InnoDB always clusters"), "{err}");
    }

    #[test]
    fn public_lookups_go_through_the_external_id() {
        let s = sql("int+uuid4");
        assert!(s.create[0].contains("UNIQUE KEY ext_id (ext_id)"));
        assert!(s.user_by_public.ends_with("WHERE ext_id = ?"));
        assert!(s.touch_user.ends_with("SET created_at = ? WHERE ext_id = ?"));
        assert!(!sql("int+uuid4-noindex").create[0].contains("UNIQUE"));
        assert!(sql("uuid7+uuid4-map").orders_of_user.contains("d.users_map"));
        assert!(sql("int").user_by_public.ends_with("WHERE id = ?"));
    }
}
