//! Rules about the code's shape that the compiler does not check, read from the sources:
//!
//! - no `match` on an [`EngineKind`](pkbench_core::engines::EngineKind) ends in a catch-all arm
//!   (`_ =>` or a bare binding), so adding an engine makes the compiler list every decision;
//! - `unsafe` appears only in pkbench-core's `platform` module, behind safe functions;
//! - pkbench-core's top-level modules form no cycle (`engines` may use `schema`, or `schema`
//!   `engines`, not both), so each layer reads only the layers below it.
//!
//! Test code (`#[cfg(test)]` modules and the files they declare) is left out of both.

mod shape;

use shape::{SourceFile, catch_all_engine_arms, cycles_in, module_cycles, module_edges, unsafe_uses};
use std::path::Path;

fn library_sources() -> Vec<SourceFile> {
    SourceFile::all_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

fn cli_sources() -> Vec<SourceFile> {
    SourceFile::all_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../pkbench/src"))
}

/// Files whose catch-all arms on an engine are known and being rewritten; each must still have
/// one (remove it from here once it has none).
const CATCH_ALLS_BEING_REWRITTEN: &[&str] = &[];

/// Uses that still point up the layers, each closing cycles through the rest (`from`, `to`);
/// each must still be there (remove it from here once it is gone); no other use may close a
/// cycle.
const UPWARD_USES: &[(&str, &str)] = &[];

#[test]
fn no_match_on_an_engine_kind_has_a_catch_all_arm() {
    let mut found = Vec::new();
    for file in library_sources().iter().chain(&cli_sources()) {
        found.extend(catch_all_engine_arms(file));
    }
    assert_only_in_known_files(
        &found,
        CATCH_ALLS_BEING_REWRITTEN,
        "matches on EngineKind with a catch-all arm (name every engine instead)",
    );
}

/// Files outside `platform` whose `unsafe` is known and being rewritten to call it; each must
/// still have one (remove it from here once it has none).
const UNSAFE_BEING_REWRITTEN: &[&str] = &[];

#[test]
fn unsafe_code_is_only_in_the_platform_module() {
    let mut found = Vec::new();
    for file in library_sources().iter().chain(&cli_sources()) {
        if !file.path.starts_with("pkbench-core/src/platform/") {
            found.extend(unsafe_uses(file));
        }
    }
    assert_only_in_known_files(
        &found,
        UNSAFE_BEING_REWRITTEN,
        "unsafe outside platform/ (add a safe function there instead)",
    );
}

#[test]
fn the_library_modules_form_no_cycle() {
    let mut edges = module_edges(&library_sources());
    for (from, to) in UPWARD_USES {
        let removed = edges.get_mut(*from).and_then(|uses| uses.remove(*to));
        assert!(removed.is_some(), "{from} no longer uses {to}: unlist it");
    }
    let cycles = cycles_in(&edges);
    assert!(
        cycles.is_empty(),
        "module cycles in pkbench-core (move the shared item down a layer):\n{}",
        cycles.join("\n")
    );
}

/// Fails on a place in `found` (`path:line`) outside the `known` files, saying `rule`, and on a
/// known file with no place left.
fn assert_only_in_known_files(found: &[String], known: &[&str], rule: &str) {
    let in_file = |at: &String, file: &str| at.starts_with(&format!("{file}:"));
    let new: Vec<&String> = found.iter().filter(|at| !known.iter().any(|f| in_file(at, f))).collect();
    assert!(new.is_empty(), "{rule}:\n{new:#?}");
    for file in known {
        assert!(found.iter().any(|at| in_file(at, file)), "{file} has none left: unlist it");
    }
}

#[test]
fn the_checks_see_what_they_look_for() {
    let file = SourceFile::from_text(
        "a/x.rs",
        "fn f(k: EngineKind) -> u8 {\n    match k {\n        EngineKind::Sqlite => 1,\n        _ => { 2 }\n    }\n}\n\
         fn g(k: EngineKind) -> u8 {\n    match k { EngineKind::Sqlite => 1, other => { let _ = other; 2 } }\n}\n\
         fn h(k: EngineKind, s: &str) -> u8 {\n    match k { EngineKind::Sqlite if s == \"}\" => 1, EngineKind::Sqlite | EngineKind::Postgres => '{' as u8, _ if s.is_empty() => 3, EngineKind::MariaDb => 4 }\n}\n\
         fn i(n: u8) -> EngineKind {\n    match n { 0 => EngineKind::Sqlite, _ => EngineKind::Postgres }\n}\n\
         #[cfg(test)]\nmod tests {\n    fn t(k: EngineKind) { match k { EngineKind::Sqlite => {}, _ => {} } }\n}\n",
    );
    assert_eq!(catch_all_engine_arms(&file), ["a/x.rs:4", "a/x.rs:8"]);

    let modules = [
        SourceFile::from_text("src/a/mod.rs", "use crate::b::Thing;\n#[cfg(test)]\nmod tests;\n"),
        SourceFile::from_text("src/a/tests.rs", "use crate::c::Other;\n"),
        SourceFile::from_text("src/b.rs", "use crate::{c::X, util};\n// crate::a::Y\n"),
        SourceFile::from_text("src/c.rs", "fn f() -> crate::Error { crate::a::make() }\n"),
        SourceFile::from_text("src/lib.rs", "mod a;\nmod b;\nmod c;\nmod error;\npub use error::Error;\n"),
        SourceFile::from_text("src/error.rs", "pub enum Error {}\n"),
        SourceFile::from_text("src/util.rs", "use crate::Error;\n"),
    ];
    assert_eq!(module_cycles(&modules), ["a -> b (src/a/mod.rs:1) -> c (src/b.rs:1) -> a (src/c.rs:1)"]);
}
