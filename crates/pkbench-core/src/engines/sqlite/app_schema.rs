//! SQLite's tables of the application workload: `users` and `orders` keyed by the strategy in
//! the rowid or `WITHOUT ROWID` layout its benchmark table has, with its foreign key and
//! the keyset index `orders(user_id, id)`. The statements are the shared renderer's
//! ([`crate::engines::sql::app`]) in SQLite's dialect.

use super::dialect::SqliteDialect;
use super::schema::column_type;
use crate::Error;
use crate::engines::app::AppSql;
use crate::strategy::{SecondaryLookup, Storage, Strategy};

/// Renders the application schema for `strategy`, with numbered `?N` placeholders in the order
/// [`AppSql`] lists its parameters.
pub fn render(strategy: &Strategy) -> Result<AppSql, Error> {
    super::schema::render(strategy)?; // same refusals as the benchmark table
    let mut sql = crate::engines::sql::app::render(&SqliteDialect, strategy, "")?;
    let pk_type = column_type(strategy.primary.storage);
    let integer_pk = strategy.primary.storage == Storage::Integer;
    let pk_column =
        if integer_pk { "id INTEGER PRIMARY KEY".to_string() } else { format!("id {pk_type} NOT NULL PRIMARY KEY") };
    let without_rowid = if super::schema::is_without_rowid(strategy) { " WITHOUT ROWID" } else { "" };
    let sec = strategy.secondary;
    let ext = sec.map_or(String::new(), |s| {
        let unique = if s.lookup == SecondaryLookup::UniqueIndex { " UNIQUE" } else { "" };
        format!("ext_id {} NOT NULL{unique}, ", column_type(s.storage))
    });
    sql.create = vec![
        format!(
            "CREATE TABLE users ({pk_column}, {ext}name TEXT NOT NULL, email TEXT NOT NULL, age INTEGER NOT NULL, created_at INTEGER NOT NULL){without_rowid}"
        ),
        format!(
            "CREATE TABLE orders ({pk_column}, {ext}user_id {pk_type} NOT NULL REFERENCES users(id), amount INTEGER NOT NULL, created_at INTEGER NOT NULL){without_rowid}"
        ),
        // (user_id, id): a user's orders in key order, so keyset pages need no sort.
        "CREATE INDEX orders_user_id ON orders(user_id, id)".to_string(),
    ];
    if let Some(s) = sec.filter(|s| s.lookup == SecondaryLookup::MappingTable) {
        let ty = column_type(s.storage);
        for table in ["users", "orders"] {
            sql.create.push(format!(
                "CREATE TABLE {table}_map (ext_id {ty} NOT NULL PRIMARY KEY, id {pk_type} NOT NULL) WITHOUT ROWID"
            ));
        }
    }
    Ok(sql)
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
