//! The scratch namespaces pkbench makes on a user's server carry a label — the machine, the
//! process id and what tells that process from a later one with the same id — so a run killed
//! before it could drop its namespace (SIGKILL, a power cut) is cleaned up by the next run
//! against that server. Only namespaces with pkbench's label, made on this machine by a process
//! that is gone, are touched: a namespace without the label, or one of a live run or of another
//! machine, is never dropped.

use super::backend::Backend;

/// The start of every label, so a comment or row of someone else's is never read as one.
const PREFIX: &str = "pkbench scratch space:";

/// Who made a scratch namespace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// The machine's host name.
    pub host: String,
    /// The process id.
    pub pid: u32,
    /// What tells that process from a later one with the same id (`unknown` where the system
    /// does not say).
    pub start: String,
    /// When the namespace was made (RFC 3339), for the message only.
    pub made: String,
}

impl Label {
    /// This process's label.
    pub fn of_this_process() -> Self {
        let pid = std::process::id();
        Label {
            host: this_host(),
            pid,
            start: crate::platform::process_start_token(pid).unwrap_or_else(|| "unknown".into()),
            made: crate::util::time::rfc3339_now(),
        }
    }

    /// The label as stored: only characters that need no quoting in SQL.
    pub fn text(&self) -> String {
        format!(
            "{PREFIX} host={} pid={} start={} made={}",
            clean(&self.host),
            self.pid,
            clean(&self.start),
            clean(&self.made)
        )
    }

    /// A stored label; `None` for any other text.
    pub fn parse(text: &str) -> Option<Self> {
        let rest = text.trim().strip_prefix(PREFIX)?;
        let field = |key: &str| {
            rest.split_whitespace()
                .find_map(|w| w.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
                .map(String::from)
        };
        Some(Label {
            host: field("host")?,
            pid: field("pid")?.parse().ok()?,
            start: field("start")?,
            made: field("made")?,
        })
    }

    /// Whether the process that made the namespace is gone: made on this machine, and no
    /// process has its id, or the one that has it started later. A live run's namespace, or one
    /// from another machine, is never taken for a leftover.
    pub fn process_gone(&self) -> bool {
        if self.host != clean(&this_host()) {
            return false;
        }
        if !crate::platform::process_exists(self.pid) {
            return true;
        }
        match crate::platform::process_start_token(self.pid) {
            Some(now) => self.start != "unknown" && clean(&now) != self.start,
            None => false,
        }
    }
}

fn this_host() -> String {
    crate::platform::host_name().unwrap_or_else(|| "unknown".into())
}

/// `s` with only characters that need no quoting in SQL.
fn clean(s: &str) -> String {
    s.chars().filter(|c| c.is_ascii_alphanumeric() || "._:-".contains(*c)).collect()
}

/// `(name, label)` of the rows of a catalog query, keeping only `pkbench_…` names that are
/// plain identifiers (nothing that would need quoting in the DROP pkbench writes).
pub fn labelled(rows: Vec<Vec<crate::engines::wire::Value>>) -> Vec<(String, String)> {
    rows.into_iter()
        .filter_map(|row| {
            let mut cells = row.into_iter();
            let name = cells.next()?.as_text()?;
            let label = cells.next()?.as_text()?;
            let plain = name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            (plain && name.starts_with("pkbench_")).then_some((name, label))
        })
        .collect()
}

/// Finds the labelled namespaces on the server `conn` reaches whose process is gone, and drops
/// them unless `backend` keeps leftovers; returns one line about each.
pub fn sweep<B: Backend>(backend: &B, conn: &mut B::Conn, target: &str) -> Vec<String> {
    let word = backend.dialect().namespace_word();
    let mut notices = Vec::new();
    let found = match backend.labelled_namespaces(conn) {
        Ok(found) => found,
        Err(e) => return vec![format!("Could not look for the leftovers of killed pkbench runs on {target}: {e}")],
    };
    for (name, text) in found {
        let Some(label) = Label::parse(&text).filter(Label::process_gone) else { continue };
        let who = format!("left by pkbench process {} of this machine, made {}, which is gone", label.pid, label.made);
        let drop = backend.dialect().drop_namespace(&name);
        let line = if backend.keep_leftovers() {
            format!("Kept {word} {name} on {target}, {who} (--keep-leftovers): remove it with {drop}")
        } else {
            match crate::engines::wire::Connection::execute(conn, &drop) {
                Ok(()) => format!("Removed {word} {name} on {target}, {who}"),
                Err(e) => format!("Could not remove {word} {name} on {target}, {who}: {e}"),
            }
        };
        notices.push(line);
    }
    notices
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_read_back_and_only_gone_processes_of_this_machine_are_leftovers() {
        let me = Label::of_this_process();
        assert_eq!(Label::parse(&me.text()), Some(Label { host: clean(&me.host), ..me.clone() }));
        assert!(!me.process_gone(), "this process is alive");
        assert_eq!(Label::parse("a comment of the user's"), None);
        assert_eq!(Label::parse("pkbench scratch space: host=h"), None);
        // A process id no process has (above Linux's pid_max).
        let dead = Label { pid: 4_999_999, ..Label::parse(&me.text()).unwrap() };
        assert!(dead.process_gone());
        let elsewhere = Label { host: "another-machine".into(), ..dead.clone() };
        assert!(!elsewhere.process_gone(), "another machine's runs are never judged from here");
        // This process's id with another start: a later process reusing the id.
        let reused = Label { start: "other-boot:1".into(), ..Label::parse(&me.text()).unwrap() };
        assert_eq!(reused.process_gone(), cfg!(target_os = "linux"));
        let text = Label { host: "h'; DROP".into(), ..me }.text();
        assert!(!text.contains('\'') && !text.contains(';'), "{text}");
    }
}
