//! SQLite SQL of the application workload: `users` and `orders` keyed by the strategy, with
//! seed 001's foreign key and an index on `orders(user_id)`.

use super::schema::column_type;
use crate::Error;
use crate::engines::app::AppSql;
use crate::strategy::{KeySource, PrimaryIndex, SecondaryLookup, Storage, Strategy};

/// Renders the application schema for `strategy`, with numbered `?N` placeholders in the order
/// [`AppSql`] lists its parameters.
pub fn render(strategy: &Strategy) -> Result<AppSql, Error> {
    super::schema::render(strategy)?; // same refusals as the benchmark table
    let pk_type = column_type(strategy.primary.storage);
    let integer_pk = strategy.primary.storage == Storage::Integer;
    let client_primary = matches!(strategy.primary.source, KeySource::Client(_));
    let pk_column =
        if integer_pk { "id INTEGER PRIMARY KEY".to_string() } else { format!("id {pk_type} NOT NULL PRIMARY KEY") };
    let without_rowid = if strategy.index == PrimaryIndex::Clustered && !integer_pk { " WITHOUT ROWID" } else { "" };
    let sec = strategy.secondary;
    let ext_column = sec.map(|s| {
        let unique = if s.lookup == SecondaryLookup::UniqueIndex { " UNIQUE" } else { "" };
        format!("ext_id {} NOT NULL{unique}, ", column_type(s.storage))
    });
    let ext = ext_column.clone().unwrap_or_default();
    let mapping = sec.is_some_and(|s| s.lookup == SecondaryLookup::MappingTable);
    let mut create = vec![
        format!(
            "CREATE TABLE users ({pk_column}, {ext}name TEXT NOT NULL, email TEXT NOT NULL, age INTEGER NOT NULL, created_at INTEGER NOT NULL){without_rowid}"
        ),
        format!(
            "CREATE TABLE orders ({pk_column}, {ext}user_id {pk_type} NOT NULL REFERENCES users(id), amount INTEGER NOT NULL, created_at INTEGER NOT NULL){without_rowid}"
        ),
        // (user_id, id): a user's orders in key order, so keyset pages need no sort.
        "CREATE INDEX orders_user_id ON orders(user_id, id)".to_string(),
    ];
    let mut counted = vec![("users", "users"), ("orders", "orders")];
    let (mut map_users, mut map_orders, mut delete_order_map) = (None, None, None);
    if let (true, Some(s)) = (mapping, sec) {
        let ty = column_type(s.storage);
        let id_value = if client_primary { "?2" } else { "last_insert_rowid()" };
        for (table, slot) in [("users", &mut map_users), ("orders", &mut map_orders)] {
            create.push(format!(
                "CREATE TABLE {table}_map (ext_id {ty} NOT NULL PRIMARY KEY, id {pk_type} NOT NULL) WITHOUT ROWID"
            ));
            *slot = Some(format!("INSERT INTO {table}_map (ext_id, id) VALUES (?1, {id_value})"));
        }
        delete_order_map = Some("DELETE FROM orders_map WHERE ext_id = ?1".to_string());
        counted.extend([("users_map", "users"), ("orders_map", "orders")]);
    }
    let mut key_cols = Vec::new();
    if client_primary {
        key_cols.push("id");
    }
    if sec.is_some() {
        key_cols.push("ext_id");
    }
    let insert = |table: &str, rest: &[&str]| {
        let cols: Vec<&str> = key_cols.iter().copied().chain(rest.iter().copied()).collect();
        let params: Vec<String> = (1..=cols.len()).map(|i| format!("?{i}")).collect();
        format!("INSERT INTO {table} ({}) VALUES ({})", cols.join(", "), params.join(", "))
    };
    // How the application finds a user's primary key from its public id (`?1`).
    let (user_where, user_pk) = match sec.map(|s| s.lookup) {
        None => ("id = ?1".to_string(), "?1".to_string()),
        Some(SecondaryLookup::MappingTable) => {
            let pk = "(SELECT id FROM users_map WHERE ext_id = ?1)".to_string();
            (format!("id = {pk}"), pk)
        }
        Some(_) => ("ext_id = ?1".to_string(), "(SELECT id FROM users WHERE ext_id = ?1)".to_string()),
    };
    let join = "SELECT o.user_id, u.name, o.id, o.amount FROM orders o JOIN users u ON u.id = o.user_id";
    Ok(AppSql {
        create,
        insert_user: insert("users", &["name", "email", "age", "created_at"]),
        insert_order: insert("orders", &["user_id", "amount", "created_at"]),
        map_users,
        map_orders,
        client_primary,
        average_age: "SELECT avg(age) FROM users".to_string(),
        user_by_public: format!("SELECT id, name, email, age, created_at FROM users WHERE {user_where}"),
        user_by_id: sec
            .is_some()
            .then(|| "SELECT id, name, email, age, created_at FROM users WHERE id = ?1".to_string()),
        orders_of_user: format!("SELECT id, amount, created_at FROM orders WHERE user_id = {user_pk}"),
        join_first: format!("{join} ORDER BY o.user_id, o.id LIMIT ?1"),
        join_next: format!("{join} WHERE (o.user_id, o.id) > (?1, ?2) ORDER BY o.user_id, o.id LIMIT ?3"),
        touch_user: format!("UPDATE users SET created_at = ?2 WHERE {user_where}"),
        delete_order: "DELETE FROM orders WHERE id = ?1".to_string(),
        delete_order_map,
        counted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_catalog_strategy_renders_valid_sql() {
        for strategy in crate::strategy::CATALOG {
            let Ok(schema) = render(strategy) else { continue };
            let conn = rusqlite::Connection::open_in_memory().unwrap();
            for stmt in &schema.create {
                conn.execute_batch(stmt).unwrap_or_else(|e| panic!("{}: {stmt}: {e}", strategy.name));
            }
            let all = [&schema.insert_user, &schema.insert_order, &schema.user_by_public, &schema.orders_of_user];
            let more = [&schema.join_first, &schema.join_next, &schema.touch_user, &schema.delete_order];
            for sql in all.into_iter().chain(more).chain(schema.map_users.iter()).chain(schema.delete_order_map.iter())
            {
                conn.prepare(sql).unwrap_or_else(|e| panic!("{}: {sql}: {e}", strategy.name));
            }
        }
    }

    #[test]
    fn keyset_pages_need_no_sort() {
        for name in ["int", "uuid4", "uuid4-rowid", "int+uuid4"] {
            let schema = render(crate::strategy::find(name).unwrap()).unwrap();
            let conn = rusqlite::Connection::open_in_memory().unwrap();
            for stmt in &schema.create {
                conn.execute_batch(stmt).unwrap();
            }
            let plan: Vec<String> = conn
                .prepare(&format!("EXPLAIN QUERY PLAN {}", schema.join_next))
                .unwrap()
                .query_map([1, 2, 3], |r| r.get(3))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            assert!(!plan.iter().any(|p| p.contains("TEMP B-TREE")), "{name}: {plan:?}");
        }
    }

    #[test]
    fn public_lookups_go_through_the_external_id() {
        let s = render(crate::strategy::find("int+uuid4").unwrap()).unwrap();
        assert!(s.user_by_public.ends_with("WHERE ext_id = ?1"));
        let s = render(crate::strategy::find("uuid7+uuid4-map").unwrap()).unwrap();
        assert!(s.orders_of_user.contains("users_map"));
        let s = render(crate::strategy::find("int").unwrap()).unwrap();
        assert!(s.user_by_public.ends_with("WHERE id = ?1"));
    }
}
