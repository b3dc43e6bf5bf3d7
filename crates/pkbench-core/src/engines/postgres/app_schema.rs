//! PostgreSQL SQL of the application workload: `users` and `orders` keyed by the strategy as the
//! insert-growth table is (identity, `uuid`, `char(n)`, server default), with a foreign key
//! orders → users and the keyset join index `orders(user_id, id)`.

use super::schema::{column_type, primary_key_column};
use crate::Error;
use crate::engines::app::AppSql;
use crate::strategy::{KeySource, SecondaryLookup, Strategy};

/// Renders the application schema for `strategy` inside `schema`, with `$N` placeholders in the
/// order [`AppSql`] lists its parameters.
pub fn render(strategy: &Strategy, schema: &str) -> Result<AppSql, Error> {
    super::schema::render(strategy, schema)?; // same refusals as the benchmark table
    let t = |name: &str| format!("{schema}.{name}");
    let pk_type = column_type(strategy.primary.storage);
    let pk_column = primary_key_column(strategy)?;
    let client_primary = matches!(strategy.primary.source, KeySource::Client(_));
    let sec = strategy.secondary;
    let ext = sec.map_or(String::new(), |s| {
        let unique = if s.lookup == SecondaryLookup::UniqueIndex { " UNIQUE" } else { "" };
        format!("ext_id {} NOT NULL{unique}, ", column_type(s.storage))
    });
    let mut create = vec![
        format!(
            "CREATE TABLE {} ({pk_column}, {ext}name text NOT NULL, email text NOT NULL, age bigint NOT NULL, created_at bigint NOT NULL)",
            t("users")
        ),
        format!(
            "CREATE TABLE {} ({pk_column}, {ext}user_id {pk_type} NOT NULL REFERENCES {}(id), amount bigint NOT NULL, created_at bigint NOT NULL)",
            t("orders"),
            t("users")
        ),
        // (user_id, id): a user's orders in key order, so keyset pages need no sort.
        format!("CREATE INDEX orders_user_id ON {} (user_id, id)", t("orders")),
    ];
    let mut counted = vec![("users", "users"), ("orders", "orders")];
    let (mut map_users, mut map_orders, mut delete_order_map) = (None, None, None);
    let mapping = sec.filter(|s| s.lookup == SecondaryLookup::MappingTable);
    if let Some(s) = mapping {
        for (table, slot) in [("users_map", &mut map_users), ("orders_map", &mut map_orders)] {
            create.push(format!(
                "CREATE TABLE {} (ext_id {} NOT NULL PRIMARY KEY, id {pk_type} NOT NULL)",
                t(table),
                column_type(s.storage)
            ));
            *slot = Some(format!("INSERT INTO {} (ext_id, id) VALUES ($1, $2)", t(table)));
        }
        delete_order_map = Some(format!("DELETE FROM {} WHERE ext_id = $1", t("orders_map")));
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
        let params: Vec<String> = (1..=cols.len()).map(|i| format!("${i}")).collect();
        format!("INSERT INTO {} ({}) VALUES ({}){returning}", t(table), cols.join(", "), params.join(", "))
    };
    // How the application finds a user's primary key from its public id (`$1`).
    let (user_where, user_pk) = match sec.map(|s| s.lookup) {
        None => ("id = $1".to_string(), "$1".to_string()),
        Some(SecondaryLookup::MappingTable) => {
            let pk = format!("(SELECT id FROM {} WHERE ext_id = $1)", t("users_map"));
            (format!("id = {pk}"), pk)
        }
        Some(_) => ("ext_id = $1".to_string(), format!("(SELECT id FROM {} WHERE ext_id = $1)", t("users"))),
    };
    let join = format!(
        "SELECT o.user_id, u.name, o.id, o.amount FROM {} o JOIN {} u ON u.id = o.user_id",
        t("orders"),
        t("users")
    );
    Ok(AppSql {
        create,
        insert_user: insert("users", &["name", "email", "age", "created_at"]),
        insert_order: insert("orders", &["user_id", "amount", "created_at"]),
        map_users,
        map_orders,
        client_primary,
        // avg(bigint) is numeric; as float8 it is exact for these sums.
        average_age: format!("SELECT avg(age)::float8 FROM {}", t("users")),
        user_by_public: format!("SELECT id, name, email, age, created_at FROM {} WHERE {user_where}", t("users")),
        orders_of_user: format!("SELECT id, amount, created_at FROM {} WHERE user_id = {user_pk}", t("orders")),
        join_first: format!("{join} ORDER BY o.user_id, o.id LIMIT $1"),
        join_next: format!("{join} WHERE (o.user_id, o.id) > ($1, $2) ORDER BY o.user_id, o.id LIMIT $3"),
        touch_user: format!("UPDATE {} SET created_at = $2 WHERE {user_where}", t("users")),
        delete_order: format!("DELETE FROM {} WHERE id = $1", t("orders")),
        delete_order_map,
        counted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::find;

    fn sql(name: &str) -> AppSql {
        render(find(name).unwrap(), "s").unwrap()
    }

    #[test]
    fn keys_map_as_in_the_benchmark_table() {
        let int = sql("int");
        assert!(int.create[0].starts_with("CREATE TABLE s.users (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"));
        assert!(int.create[1].contains("user_id bigint NOT NULL REFERENCES s.users(id)"));
        assert_eq!(int.create[2], "CREATE INDEX orders_user_id ON s.orders (user_id, id)");
        assert!(int.insert_user.ends_with("VALUES ($1, $2, $3, $4) RETURNING id"));
        let uuid = sql("uuid4");
        assert!(uuid.create[0].contains("(id uuid NOT NULL PRIMARY KEY,"));
        assert!(uuid.insert_order.starts_with("INSERT INTO s.orders (id, user_id, amount, created_at)"));
        assert!(!uuid.insert_order.contains("RETURNING"));
        assert!(sql("uuid4-text").create[0].contains("id char(36) NOT NULL PRIMARY KEY"));
        assert!(sql("uuid4-server").create[0].contains("DEFAULT gen_random_uuid()"));
    }

    #[test]
    fn public_lookups_go_through_the_external_id() {
        let s = sql("int+uuid4");
        assert!(s.create[0].contains("ext_id uuid NOT NULL UNIQUE"));
        assert!(s.user_by_public.ends_with("WHERE ext_id = $1"));
        assert!(s.orders_of_user.ends_with("user_id = (SELECT id FROM s.users WHERE ext_id = $1)"));
        let m = sql("uuid7+uuid4-map");
        assert!(m.orders_of_user.contains("s.users_map"));
        assert_eq!(m.counted.len(), 4);
        assert!(sql("int").user_by_public.ends_with("WHERE id = $1"));
    }
}
