//! `pkbench ids`: generate, inspect and bench from the command line, including bad input.

use assert_cmd::Command;
use predicates::prelude::*;

fn pkbench() -> Command {
    Command::cargo_bin("pkbench").expect("pkbench binary")
}

fn stdout_lines(args: &[&str]) -> Vec<String> {
    let out = pkbench().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(str::to_string).collect()
}

#[test]
fn gen_prints_n_ids_of_every_scheme_in_its_text_form() {
    let schemes = [
        ("int", 1..=20),
        ("snowflake", 1..=19),
        ("masked-int", 1..=19),
        ("hash-seq", 1..=19),
        ("bitrev-seq", 1..=19),
        ("shard-bits-seq", 1..=19),
        ("snowflake-workers", 1..=19),
        ("uuid1", 36..=36),
        ("uuid4", 36..=36),
        ("uuid6", 36..=36),
        ("uuid7", 36..=36),
        ("ulid", 26..=26),
        ("seq-uuid", 36..=36),
        ("time-uuid", 36..=36),
        ("comb", 36..=36),
        ("comb-mssql", 36..=36),
    ];
    for (scheme, len) in schemes {
        let lines = stdout_lines(&["ids", "gen", scheme, "-n", "50", "--seed", "1", "--key", "7"]);
        assert_eq!(lines.len(), 50, "{scheme}");
        assert!(lines.iter().all(|l| len.contains(&l.len())), "{scheme}: {lines:?}");
        let mut unique = lines.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 50, "{scheme}: duplicates");
    }
    assert_eq!(stdout_lines(&["ids", "gen", "int", "-n", "3"]), ["1", "2", "3"]);
}

#[test]
fn gen_formats_and_seeds() {
    let hex = stdout_lines(&["ids", "gen", "uuid7", "-n", "3", "--format", "hex", "--seed", "42"]);
    let text = stdout_lines(&["ids", "gen", "uuid7", "-n", "3", "--seed", "42"]);
    assert!(hex.iter().all(|l| l.len() == 32 && !l.contains('-')));
    assert_eq!(hex[0], text[0].replace('-', ""));
    // The seeded stream is the benchmark's: pkbench run --seed 42 inserts exactly these keys.
    assert_eq!(text[0], "019b76da-a800-73d4-9bcc-9ad2467b4bb7");
    let b32 = stdout_lines(&["ids", "gen", "uuid4", "-n", "2", "--format", "base32"]);
    assert!(b32.iter().all(|l| l.len() == 26));
    // Without --seed, two runs differ.
    assert_ne!(stdout_lines(&["ids", "gen", "uuid4"]), stdout_lines(&["ids", "gen", "uuid4"]));
    let ordered = stdout_lines(&["ids", "gen", "ulid", "-n", "2000"]);
    assert!(ordered.windows(2).all(|w| w[0] < w[1]), "ULIDs not increasing");
    let m3 = stdout_lines(&["ids", "gen", "uuid7", "--v7-method", "3", "-n", "2000"]);
    assert!(m3.windows(2).all(|w| w[0] < w[1]), "v7 method 3 not increasing");
}

#[test]
fn gen_pipes_a_million_ids_quickly() {
    let out = pkbench().args(["ids", "gen", "uuid7", "-n", "1M"]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout.len(), 1_000_000 * 37);
}

#[test]
fn gen_rejects_bad_parameters_with_one_line() {
    for (args, needle) in [
        (vec!["ids", "gen", "uuid5"], "unknown ID scheme 'uuid5'"),
        (vec!["ids", "gen", "uuid7", "--format", "int"], "do not fit a 64-bit integer"),
        (vec!["ids", "gen", "snowflake", "--format", "hex"], "64-bit integers"),
        (vec!["ids", "gen", "snowflake", "--worker", "2000"], "0-1023"),
        (vec!["ids", "gen", "seq-uuid", "--block-size", "0"], "positive integers"),
        (vec!["ids", "gen", "uuid7", "--v7-method", "2"], "'2'"),
        (vec!["ids", "gen", "masked-int", "--key", "zz"], "not a 64-bit key"),
        (vec!["ids", "gen", "hash-seq", "--hash-buckets", "257"], "use 2-256"),
        (vec!["ids", "gen", "shard-bits-seq", "--shard-bits", "16"], "use 1-15"),
        (vec!["ids", "gen", "snowflake-workers", "--worker-count", "0"], "use 1-1024"),
        (vec!["ids", "inspect", "--scheme", "uuid7", "1"], "recognised without --scheme"),
        (vec!["ids", "inspect", "--scheme", "hash-seq", "--hash-buckets", "1", "1"], "use 2-256"),
    ] {
        pkbench().args(&args).assert().failure().stderr(predicate::str::contains(needle));
    }
}

#[test]
fn masked_int_round_trips_through_inspect_with_the_key() {
    let ids = stdout_lines(&["ids", "gen", "masked-int", "-n", "3", "--key", "0x5eed"]);
    let out = stdout_lines(&["ids", "inspect", "--key", "0x5eed", &ids[2]]);
    assert!(out.iter().any(|l| l.contains("unmasked") && l.contains(" 3 (masked-int")), "{out:?}");
}

#[test]
fn shard_aware_keys_decode_with_their_scheme_and_parameters() {
    let inspect = |scheme: &str, extra: &[&str], id: &str| {
        let mut args = vec!["ids", "inspect", "--scheme", scheme];
        args.extend(extra);
        args.push(id);
        stdout_lines(&args).join("\n")
    };
    let ids = stdout_lines(&["ids", "gen", "hash-seq", "-n", "3", "--hash-buckets", "8", "--seed", "1"]);
    let out = inspect("hash-seq", &["--hash-buckets", "8"], &ids[2]);
    assert!(out.contains("hash-seq (hash bucket | sequence)") && out.contains("sequence   3"), "{out}");
    assert!(out.contains(" of 8") && !out.contains("note"), "{out}");
    // Sequence 3's hash is bucket 12 of 16 but 4 of 8: read with 16 buckets, the bucket is wrong.
    assert!(inspect("hash-seq", &[], &ids[2]).contains("pass --hash-buckets"));

    let ids = stdout_lines(&["ids", "gen", "bitrev-seq", "-n", "5", "--seed", "1"]);
    assert_eq!(ids[0], (1i64 << 62).to_string());
    assert!(inspect("bitrev-seq", &[], &ids[4]).contains("sequence   5"));

    let ids = stdout_lines(&["ids", "gen", "shard-bits-seq", "-n", "2", "--shard-bits", "8", "--seed", "1"]);
    let out = inspect("shard-bits-seq", &["--shard-bits", "8"], &ids[1]);
    assert!(out.contains(" of 256") && out.contains("sequence   2") && !out.contains("note"), "{out}");

    let ids = stdout_lines(&["ids", "gen", "snowflake-workers", "-n", "3", "--worker-count", "2", "--seed", "1"]);
    let out = inspect("snowflake-workers", &[], &ids[1]);
    assert!(out.contains("worker     1") && out.contains("2026-01-01T00:00:00.001Z"), "{out}");
    assert!(inspect("snowflake-workers", &[], &ids[2]).contains("worker     0"));

    // Without --scheme they are plain integers (or a guess at a Snowflake), never a layout.
    let plain = stdout_lines(&["ids", "inspect", &ids[1]]).join("\n");
    assert!(!plain.contains("snowflake-workers"), "{plain}");
}

#[test]
fn inspect_decodes_rfc_examples_and_reports_order() {
    let out = stdout_lines(&[
        "ids",
        "inspect",
        "C232AB00-9414-11EC-B3C8-9F6BDECED846",
        "1EC9414C-232A-6B00-B3C8-9F6BDECED846",
        "017F22E2-79B0-7CC3-98C4-DC0C0C07398F",
    ])
    .join("\n");
    for needle in ["UUIDv1", "UUIDv6", "UUIDv7", "2022-02-22T19:22:22.0000000Z", "2022-02-22T19:22:22.000Z", "0x33c8"] {
        assert!(out.contains(needle), "missing {needle}:\n{out}");
    }
    assert!(out.contains("order of 3 IDs: not sorted"), "{out}");
}

#[test]
fn inspect_reads_stdin_and_flags_bad_lines_without_stopping() {
    let ids = stdout_lines(&["ids", "gen", "uuid7", "-n", "5"]).join("\n");
    let input = format!("{ids}\nnot-an-id\n\n{}\n01ARZ3NDEKTSV4RRFFQ69G5FAV\n\u{00e9}\u{00e9}\n", "z".repeat(200));
    let out = pkbench().args(["ids", "inspect"]).write_stdin(input).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stdout.matches("UUIDv7").count(), 5, "{stdout}");
    assert!(stdout.contains("ULID"), "{stdout}");
    assert!(stdout.contains("order of 6 IDs"), "{stdout}");
    let errors: Vec<&str> = stderr.lines().collect();
    assert_eq!(errors.len(), 3, "{stderr}");
    assert!(errors[0].starts_with("line 6: 'not-an-id': 9 characters is not an ID"), "{stderr}");
    assert!(errors[1].starts_with("line 8: ") && errors[1].contains('…'), "{stderr}");
    assert!(errors[2].starts_with("line 10: ") && errors[2].contains("invalid character"), "{stderr}");
    let sorted = pkbench().args(["ids", "inspect"]).write_stdin(ids).output().unwrap();
    assert!(String::from_utf8_lossy(&sorted.stdout).contains("sorted, strictly increasing; 0 inversions"));
}

#[test]
fn inspect_survives_binary_garbage() {
    let garbage: Vec<u8> = (0..=255u8).chain([b'\n', 0xff, 0xfe, b'\n', b'-', b'\n']).collect();
    let out = pkbench().args(["ids", "inspect"]).write_stdin(garbage).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

#[test]
fn bench_times_schemes() {
    pkbench()
        .args(["ids", "bench", "uuid7", "ulid", "--ms", "20", "--threads", "2"])
        .assert()
        .success()
        .stdout(predicate::str::contains("uuid7").and(predicate::str::contains("2T IDs/s")));
}
