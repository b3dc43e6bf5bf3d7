//! `pkbench ids inspect`: decode IDs from arguments or stdin; a malformed line gets one clear
//! message on stderr and the rest are still decoded (exit status 1 if any failed).

use super::InspectArgs;
use crate::output::say;
use anyhow::Context;
use pkbench_core::generators::SchemeParams;
use pkbench_core::generators::inspect::{IdValue, InspectOptions, Inspection, OrderSummary, summarize_order};
use pkbench_core::util::input::BoundedLines;
use std::io::Write;
use std::process::ExitCode;

/// The longest line read from standard input, bytes: far more than any ID in any encoding.
const MAX_LINE: usize = 4096;

/// What a failed write says.
const STDOUT: &str = "could not write to standard output";

pub fn inspect(args: InspectArgs) -> anyhow::Result<ExitCode> {
    // The same ranges as `ids gen`'s parameters.
    SchemeParams { hash_buckets: args.hash_buckets, shard_bits: args.shard_bits, ..SchemeParams::default() }
        .validate()?;
    let mut session = Session {
        options: InspectOptions {
            snowflake_epoch_ms: args.epoch,
            mask_key: args.key,
            layout: args.scheme,
            hash_buckets: args.hash_buckets,
            shard_bits: args.shard_bits,
        },
        values: Vec::new(),
        failed: 0,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if args.ids.is_empty() || args.ids == ["-"] {
        // Line by line, each at most MAX_LINE bytes: an endless line ends in one message.
        for line in BoundedLines::new(std::io::stdin().lock(), MAX_LINE) {
            let (number, bytes) = line.context("standard input")?;
            match String::from_utf8(bytes) {
                Ok(line) if line.trim().is_empty() => {}
                Ok(line) => session.handle(&format!("line {number}"), &line, &mut out).context(STDOUT)?,
                // Bytes that are not text (a binary file, /dev/urandom) end the reading: every
                // further line would be the same complaint.
                Err(_) => {
                    out.flush().context(STDOUT)?;
                    anyhow::bail!("standard input is not text (line {number} is not UTF-8): give one ID per line");
                }
            }
        }
    } else {
        for (i, id) in args.ids.iter().enumerate() {
            session.handle(&format!("argument {}", i + 1), id, &mut out).context(STDOUT)?;
        }
    }
    if session.values.len() > 1 {
        print_order(&summarize_order(&session.values), &mut out).context(STDOUT)?;
    }
    out.flush().context(STDOUT)?;
    Ok(if session.failed > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

struct Session {
    options: InspectOptions,
    values: Vec<IdValue>,
    failed: u64,
}

impl Session {
    fn handle(&mut self, origin: &str, text: &str, out: &mut impl Write) -> std::io::Result<()> {
        match pkbench_core::generators::inspect::inspect(text, &self.options) {
            Ok(found) => {
                self.values.push(found.value);
                print_one(text.trim(), &found, out)
            }
            Err(e) => {
                self.failed += 1;
                // Keep stdout and stderr in input order when both go to a terminal.
                out.flush()?;
                say!("{origin}: '{}': {e}", shorten(text.trim()));
                Ok(())
            }
        }
    }
}

/// At most 60 characters of bad input in a message.
fn shorten(s: &str) -> String {
    if s.chars().count() <= 60 { s.to_string() } else { format!("{}…", s.chars().take(60).collect::<String>()) }
}

fn print_one(text: &str, i: &Inspection, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "{text}")?;
    writeln!(out, "  scheme     {}", i.kind.label())?;
    let encoding = i.encoding.map_or("decimal integer", |e| e.label());
    writeln!(out, "  encoding   {encoding}")?;
    if let Some(v) = i.variant {
        writeln!(out, "  variant    {}", v.label())?;
    }
    if let Some(v) = i.version {
        writeln!(out, "  version    {v}")?;
    }
    if let Some(t) = i.time {
        writeln!(out, "  time       {}", t.iso8601())?;
    }
    for f in &i.fields {
        writeln!(out, "  {:<10} {}", f.name, f.value)?;
    }
    for n in &i.notes {
        writeln!(out, "  note       {n}")?;
    }
    Ok(())
}

fn print_order(s: &OrderSummary, out: &mut impl Write) -> std::io::Result<()> {
    let order = if s.strictly_increasing {
        "sorted, strictly increasing"
    } else if s.sorted {
        "sorted (with repeats)"
    } else {
        "not sorted"
    };
    let pairs = s.count * s.count.saturating_sub(1) / 2;
    writeln!(
        out,
        "order of {} IDs: {order}; {} inversions of {pairs} pairs ({:.1}%); {} duplicates",
        s.count,
        s.inversions,
        100.0 * s.inversion_ratio,
        s.duplicates
    )?;
    if s.mixed_kinds {
        writeln!(out, "  note: integers and 128-bit IDs are mixed; integers are ordered first")?;
    }
    Ok(())
}
