//! The application workload's SQL (the `users` and `orders` of "SQLite ID Benchmarks", keyed by the
//! strategy as the insert-growth table is, with a foreign key orders → users and the keyset join
//! index `orders(user_id, id)`) in any server engine's dialect.

use super::primary_key;
use crate::Error;
use crate::engines::app::AppSql;
use crate::engines::dialect::{ColumnDef, Dialect, ForeignKey, TableDef, TablePurpose};
use crate::strategy::{KeySource, SecondaryLookup, Strategy};

/// Renders the application schema for `strategy` inside `namespace`, with the dialect's
/// placeholders in the order [`AppSql`] lists its parameters (`join_next` takes the last user
/// id twice where the dialect spells the row comparison out).
pub fn render(dialect: &dyn Dialect, strategy: &Strategy, namespace: &str) -> Result<AppSql, Error> {
    super::bench::render(dialect, strategy, namespace)?; // same refusals as the benchmark table
    let t = |name: &str| dialect.qualify(namespace, name);
    let p = |n: usize| dialect.placeholder(n);
    let pk_type = dialect.key_type(strategy.primary.storage);
    let pk_definition = primary_key(dialect, strategy)?;
    let pk = || ColumnDef { name: "id", definition: pk_definition.clone(), unique: false, references: None };
    let client_primary = matches!(strategy.primary.source, KeySource::Client(_));
    let sec = strategy.secondary;
    let ext = || {
        sec.map(|s| ColumnDef {
            unique: s.lookup == SecondaryLookup::UniqueIndex,
            ..ColumnDef::not_null("ext_id", dialect.key_type(s.storage))
        })
    };
    let bigint = dialect.bigint();
    let mut users = vec![pk()];
    users.extend(ext());
    users.extend([
        ColumnDef::not_null("name", &dialect.text(64)),
        ColumnDef::not_null("email", &dialect.text(128)),
        ColumnDef::not_null("age", bigint),
        ColumnDef::not_null("created_at", bigint),
    ]);
    let mut orders = vec![pk()];
    orders.extend(ext());
    orders.extend([
        ColumnDef {
            references: Some(ForeignKey { name: "orders_user", table: t("users") }),
            ..ColumnDef::not_null("user_id", pk_type)
        },
        ColumnDef::not_null("amount", bigint),
        ColumnDef::not_null("created_at", bigint),
    ]);
    let table = |name: &str, columns, indexes| TableDef { name: t(name), columns, indexes, purpose: TablePurpose::App };
    let mut create = dialect.create_table(&table("users", users, vec![]));
    // (user_id, id): a user's orders in key order, so keyset pages need no sort.
    create.extend(dialect.create_table(&table("orders", orders, vec![("orders_user_id", "user_id, id")])));
    let mut counted = vec![("users", "users"), ("orders", "orders")];
    let (mut map_users, mut map_orders, mut delete_order_map) = (None, None, None);
    if let Some(s) = sec.filter(|s| s.lookup == SecondaryLookup::MappingTable) {
        for (name, slot) in [("users_map", &mut map_users), ("orders_map", &mut map_orders)] {
            let columns = vec![
                ColumnDef {
                    name: "ext_id",
                    definition: format!("{} NOT NULL PRIMARY KEY", dialect.key_type(s.storage)),
                    unique: false,
                    references: None,
                },
                ColumnDef::not_null("id", pk_type),
            ];
            create.extend(dialect.create_table(&table(name, columns, vec![])));
            *slot = Some(format!("INSERT INTO {} (ext_id, id) VALUES ({}, {})", t(name), p(1), p(2)));
        }
        delete_order_map = Some(format!("DELETE FROM {} WHERE ext_id = {}", t("orders_map"), p(1)));
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
        let marks = crate::engines::dialect::values_list(dialect, 1, cols.len());
        format!("INSERT INTO {} ({}) VALUES ({marks}){returning}", t(table), cols.join(", "))
    };
    // How the application finds a user's primary key from its public id (parameter `n`).
    let lookup = |n: usize| match sec.map(|s| s.lookup) {
        None => (format!("id = {}", p(n)), p(n)),
        Some(SecondaryLookup::MappingTable) => {
            let pk = format!("(SELECT id FROM {} WHERE ext_id = {})", t("users_map"), p(n));
            (format!("id = {pk}"), pk)
        }
        Some(_) => (format!("ext_id = {}", p(n)), format!("(SELECT id FROM {} WHERE ext_id = {})", t("users"), p(n))),
    };
    let (user_where, user_pk) = lookup(1);
    let (join_first, join_next) = join_pages(dialect, &t("orders"), &t("users"));
    Ok(AppSql {
        create,
        insert_user: insert("users", &["name", "email", "age", "created_at"]),
        insert_order: insert("orders", &["user_id", "amount", "created_at"]),
        map_users,
        map_orders,
        client_primary,
        average_age: dialect.average("age", &t("users")),
        user_by_public: format!("SELECT id, name, email, age, created_at FROM {} WHERE {user_where}", t("users")),
        user_by_id: sec
            .is_some()
            .then(|| format!("SELECT id, name, email, age, created_at FROM {} WHERE id = {}", t("users"), p(1))),
        orders_of_user: format!("SELECT id, amount, created_at FROM {} WHERE user_id = {user_pk}", t("orders")),
        join_first,
        join_next,
        touch_user: format!("UPDATE {} SET created_at = {} WHERE {}", t("users"), p(1), lookup(2).0),
        delete_order: format!("DELETE FROM {} WHERE id = {}", t("orders"), p(1)),
        delete_order_map,
        counted,
    })
}

/// The paginated join of `orders` and `users`: its first page, and the page after the last
/// `(user_id, id)` seen.
fn join_pages(dialect: &dyn Dialect, orders: &str, users: &str) -> (String, String) {
    let p = |n: usize| dialect.placeholder(n);
    let join = format!("SELECT o.user_id, u.name, o.id, o.amount {}", dialect.ordered_join(orders, users));
    let order = "ORDER BY o.user_id, o.id";
    let next = if dialect.row_comparison() {
        format!("{join} WHERE (o.user_id, o.id) > ({}, {}) {order} LIMIT {}", p(1), p(2), p(3))
    } else {
        format!(
            "{join} WHERE o.user_id > {} OR (o.user_id = {} AND o.id > {}) {order} LIMIT {}",
            p(1),
            p(2),
            p(3),
            p(4)
        )
    };
    (format!("{join} {order} LIMIT {}", p(1)), next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::mariadb::dialect::INNODB;
    use crate::engines::postgres::dialect::PostgresDialect;
    use crate::strategy::find;

    fn pg(name: &str) -> AppSql {
        render(&PostgresDialect, find(name).unwrap(), "s").unwrap()
    }

    fn my(name: &str) -> AppSql {
        render(&INNODB, find(name).unwrap(), "d").unwrap()
    }

    #[test]
    fn postgres_keys_map_as_in_the_benchmark_table() {
        let int = pg("int");
        assert!(int.create[0].starts_with("CREATE TABLE s.users (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"));
        assert!(int.create[1].contains("user_id bigint NOT NULL REFERENCES s.users(id)"));
        assert_eq!(int.create[2], "CREATE INDEX orders_user_id ON s.orders (user_id, id)");
        assert!(int.insert_user.ends_with("VALUES ($1, $2, $3, $4) RETURNING id"));
        let uuid = pg("uuid4");
        assert!(uuid.create[0].contains("(id uuid NOT NULL PRIMARY KEY,"));
        assert!(uuid.insert_order.starts_with("INSERT INTO s.orders (id, user_id, amount, created_at)"));
        assert!(!uuid.insert_order.contains("RETURNING"));
        assert!(pg("uuid4-text").create[0].contains("id char(36) NOT NULL PRIMARY KEY"));
        assert!(pg("uuid4-server").create[0].contains("DEFAULT gen_random_uuid()"));
    }

    #[test]
    fn postgres_public_lookups_go_through_the_external_id() {
        let s = pg("int+uuid4");
        assert!(s.create[0].contains("ext_id uuid NOT NULL UNIQUE"));
        assert!(s.user_by_public.ends_with("WHERE ext_id = $1"));
        assert!(s.orders_of_user.ends_with("user_id = (SELECT id FROM s.users WHERE ext_id = $1)"));
        assert!(s.touch_user.ends_with("SET created_at = $1 WHERE ext_id = $2"));
        let m = pg("uuid7+uuid4-map");
        assert!(m.orders_of_user.contains("s.users_map"));
        assert_eq!(m.counted.len(), 4);
        assert!(pg("int").user_by_public.ends_with("WHERE id = $1"));
        assert!(pg("int").join_next.contains("WHERE (o.user_id, o.id) > ($1, $2) ORDER BY o.user_id, o.id LIMIT $3"));
    }

    #[test]
    fn mariadb_keys_map_as_in_the_benchmark_table() {
        let int = my("int");
        assert!(int.create[0].starts_with("CREATE TABLE d.users (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"));
        assert!(int.create[1].contains("KEY orders_user_id (user_id, id), CONSTRAINT orders_user FOREIGN KEY"));
        assert!(int.insert_user.ends_with("VALUES (?, ?, ?, ?) RETURNING id"));
        assert!(my("uuid4").create[0].contains("(id BINARY(16) NOT NULL PRIMARY KEY,"));
        assert!(my("uuid4-text").create[1].contains("user_id CHAR(36) NOT NULL"));
        assert!(my("uuid4-mariadb-uuid").create[0].contains("(id UUID NOT NULL PRIMARY KEY,"));
        assert!(my("uuid1-server").insert_order.ends_with("RETURNING id"));
        let err = render(&INNODB, find("uuid4-rowid").unwrap(), "d").unwrap_err().to_string();
        assert!(err.contains("InnoDB always clusters"), "{err}");
    }

    #[test]
    fn mariadb_public_lookups_go_through_the_external_id() {
        let s = my("int+uuid4");
        assert!(s.create[0].contains("UNIQUE KEY ext_id (ext_id)"));
        assert!(s.user_by_public.ends_with("WHERE ext_id = ?"));
        assert!(s.touch_user.ends_with("SET created_at = ? WHERE ext_id = ?"));
        assert!(!my("int+uuid4-noindex").create[0].contains("UNIQUE"));
        assert!(my("uuid7+uuid4-map").orders_of_user.contains("d.users_map"));
        assert!(my("int").user_by_public.ends_with("WHERE id = ?"));
        assert!(my("int").join_next.contains("FORCE INDEX (orders_user_id) STRAIGHT_JOIN"));
    }
}
