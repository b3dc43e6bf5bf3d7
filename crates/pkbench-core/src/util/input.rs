//! Reading what a user hands pkbench — results, plans, schemas, value files, CA files, lines on
//! standard input — with a size limit per kind, so `/dev/zero`, a FIFO that never ends or a
//! file of the wrong kind ends in one line instead of exhausting the machine's memory.
//!
//! The limits are far beyond real use (a results file grows about 250 bytes per batch; a
//! 10,000-table schema dump is a few MiB) and small enough that reading up to one cannot hurt.

use crate::Error;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

const MIB: u64 = 1 << 20;

/// What a file given to pkbench holds, and so how large it may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// A `results.json` or `journal.jsonl` that `pkbench run` wrote: 256 MiB (a million batches).
    Results,
    /// A plan (`run --plan`, `plan show`): 1 MiB.
    Plan,
    /// A schema file of CREATE TABLE statements (`--schema`, `pkbench schema`): 64 MiB.
    Schema,
    /// A value settings file (`--values`): 16 MiB.
    Values,
    /// A file of CA certificates (`sslrootcert`, `ssl-ca`): 4 MiB.
    Certificates,
    /// A password or client option file (`--password-file`, `.pgpass`, `.my.cnf`): 1 MiB.
    Credentials,
}

impl InputKind {
    /// The largest file of this kind pkbench reads, bytes.
    pub const fn limit(self) -> u64 {
        match self {
            InputKind::Results => 256 * MIB,
            InputKind::Plan => MIB,
            InputKind::Schema => 64 * MIB,
            InputKind::Values => 16 * MIB,
            InputKind::Certificates => 4 * MIB,
            InputKind::Credentials => MIB,
        }
    }

    /// The kind, for messages ("a results file").
    pub const fn what(self) -> &'static str {
        match self {
            InputKind::Results => "a results file",
            InputKind::Plan => "a plan",
            InputKind::Schema => "a schema file",
            InputKind::Values => "a values file",
            InputKind::Certificates => "a CA file",
            InputKind::Credentials => "a password file",
        }
    }
}

/// The whole of `path` as text, if it is a file (or a pipe) of at most `kind`'s limit and UTF-8.
pub fn read_text(path: &Path, kind: InputKind) -> Result<String, Error> {
    String::from_utf8(read_bytes(path, kind)?).map_err(|e| {
        Error::InvalidInput(format!(
            "'{}' is not text (invalid UTF-8 at byte {}): give {}",
            path.display(),
            e.utf8_error().valid_up_to(),
            kind.what()
        ))
    })
}

/// The whole of `path`, if it is a file (or a pipe) of at most `kind`'s limit.
pub fn read_bytes(path: &Path, kind: InputKind) -> Result<Vec<u8>, Error> {
    let mut bytes = Vec::new();
    open(path, kind)?.read_to_end(&mut bytes).map_err(|e| unwrap_limit(path, e))?;
    Ok(bytes)
}

/// A buffered reader of `path` that fails, naming the file and the limit, once it has read past
/// `kind`'s limit. A device (`/dev/zero`, a terminal) is refused before any byte is read, and a
/// regular file larger than the limit before it is opened.
pub fn open(path: &Path, kind: InputKind) -> Result<BufReader<Bounded<File>>, Error> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io("read", path, e))?;
    if is_device(&meta) {
        return Err(Error::InvalidInput(format!(
            "'{}' is a device, not {}: give the path of a file",
            path.display(),
            kind.what()
        )));
    }
    if meta.is_dir() {
        return Err(Error::InvalidInput(format!("'{}' is a folder, not {}: give a file", path.display(), kind.what())));
    }
    if meta.is_file() && meta.len() > kind.limit() {
        return Err(too_large(path, kind));
    }
    let file = File::open(path).map_err(|e| Error::io("read", path, e))?;
    Ok(BufReader::new(Bounded::new(file, path, kind)))
}

/// An I/O error from a [`Bounded`] reader as the library's error: the limit's own message, or
/// the OS error with the file's name.
pub fn unwrap_limit(path: &Path, e: std::io::Error) -> Error {
    match e.get_ref().and_then(|inner| inner.downcast_ref::<LimitExceeded>()) {
        Some(limit) => Error::InvalidInput(limit.0.clone()),
        None => Error::io("read", path, e),
    }
}

/// Refuses `given` (a URL, say) if it holds a control character — a line break or a tab that
/// would split a one-line message — quoting `shown` (its form fit to show, password hidden)
/// with the character escaped.
pub fn single_line(given: &str, shown: &str, what: &str) -> Result<(), Error> {
    if !given.chars().any(char::is_control) {
        return Ok(());
    }
    Err(Error::InvalidInput(format!(
        "'{}' holds a control character: give {what} on one line, without tabs or line breaks",
        shown.escape_debug()
    )))
}

fn too_large(path: &Path, kind: InputKind) -> Error {
    Error::InvalidInput(format!(
        "'{}' is larger than {} MiB, the most {} may be: check that the path names one",
        path.display(),
        kind.limit() / MIB,
        kind.what()
    ))
}

/// Character and block devices, sockets: files that are no kind of input (a FIFO is allowed,
/// and bounded like any file).
fn is_device(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    t.is_char_device() || t.is_block_device() || t.is_socket()
}

/// The message of a [`Bounded`] reader that reached its limit.
#[derive(Debug)]
struct LimitExceeded(String);

impl std::fmt::Display for LimitExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LimitExceeded {}

/// A reader that yields at most its kind's limit of bytes and then an error, never a silent
/// truncation.
#[derive(Debug)]
pub struct Bounded<R> {
    inner: R,
    left: u64,
    path: PathBuf,
    kind: InputKind,
}

impl<R: Read> Bounded<R> {
    /// `inner`, read from `path`, bounded by `kind`'s limit.
    pub fn new(inner: R, path: &Path, kind: InputKind) -> Self {
        Bounded { inner, left: kind.limit(), path: path.to_path_buf(), kind }
    }
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            // At the limit: fine only if the input ends here.
            let mut probe = [0u8; 1];
            return match self.inner.read(&mut probe)? {
                0 => Ok(0),
                _ => Err(std::io::Error::other(LimitExceeded(too_large(&self.path, self.kind).to_string()))),
            };
        }
        let room = buf.len().min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..room])?;
        self.left -= n as u64;
        Ok(n)
    }
}

/// Lines of a stream (standard input), each at most `max` bytes: a longer line is an error, read
/// no further than `max + 1` bytes, so an endless line never fills memory.
pub struct BoundedLines<R> {
    reader: R,
    max: usize,
    number: u64,
    done: bool,
}

impl<R: BufRead> BoundedLines<R> {
    /// The lines of `reader`, each at most `max` bytes (without its line end).
    pub fn new(reader: R, max: usize) -> Self {
        BoundedLines { reader, max, number: 0, done: false }
    }
}

impl<R: BufRead> Iterator for BoundedLines<R> {
    /// The line's number (from 1) and its bytes, without the line end.
    type Item = Result<(u64, Vec<u8>), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let mut line = Vec::new();
        // `max` bytes, its line end (`\r\n` at most) and one byte to tell a longer line apart.
        let room = self.max as u64 + 3;
        let read = (&mut self.reader).take(room).read_until(b'\n', &mut line);
        self.number += 1;
        let n = match read {
            Ok(n) => n,
            Err(e) => {
                self.done = true;
                return Some(Err(Error::InvalidInput(format!("could not read line {}: {e}", self.number))));
            }
        };
        if n == 0 {
            self.done = true;
            return None;
        }
        if line.last() == Some(&b'\n') {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
        }
        if line.len() > self.max {
            self.done = true;
            return Some(Err(Error::InvalidInput(format!(
                "line {} is longer than {} bytes: give one value per line",
                self.number, self.max
            ))));
        }
        Some(Ok((self.number, line)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reader_past_its_limit_fails_and_one_at_it_does_not() {
        let limit = InputKind::Plan.limit() as usize;
        let read = |len: usize| {
            let mut out = Vec::new();
            Bounded::new(std::io::repeat(b'x').take(len as u64), Path::new("p.toml"), InputKind::Plan)
                .read_to_end(&mut out)
                .map(|_| out.len())
                .map_err(|e| unwrap_limit(Path::new("p.toml"), e).to_string())
        };
        assert_eq!(read(limit), Ok(limit));
        let err = read(limit + 1).unwrap_err();
        assert_eq!(err, "'p.toml' is larger than 1 MiB, the most a plan may be: check that the path names one");
    }

    #[test]
    fn devices_folders_and_large_files_are_refused_before_reading() {
        let err = read_text(Path::new("/dev/zero"), InputKind::Results).unwrap_err().to_string();
        assert_eq!(err, "'/dev/zero' is a device, not a results file: give the path of a file");
        let dir = tempfile::tempdir().unwrap();
        assert!(read_text(dir.path(), InputKind::Schema).unwrap_err().to_string().contains("is a folder"));
        let big = dir.path().join("big.toml");
        File::create(&big).unwrap().set_len(InputKind::Plan.limit() + 1).unwrap();
        assert!(read_text(&big, InputKind::Plan).unwrap_err().to_string().contains("larger than 1 MiB"));
        let bad = dir.path().join("bad.sql");
        std::fs::write(&bad, b"CREATE \xff").unwrap();
        assert!(read_text(&bad, InputKind::Schema).unwrap_err().to_string().contains("invalid UTF-8 at byte 7"));
    }

    #[test]
    fn lines_are_split_and_a_long_one_ends_the_stream() {
        let lines = |text: &[u8]| {
            BoundedLines::new(text, 4)
                .map(|l| l.map(|(n, b)| (n, String::from_utf8(b).unwrap())).map_err(|e| e.to_string()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            lines(b"ab\r\ncd\n\nefgh"),
            [Ok((1, "ab".into())), Ok((2, "cd".into())), Ok((3, String::new())), Ok((4, "efgh".into()))]
        );
        assert_eq!(
            lines(b"ab\nabcde\nx\n"),
            [Ok((1, "ab".into())), Err("line 2 is longer than 4 bytes: give one value per line".into())]
        );
        let endless = BoundedLines::new(BufReader::new(std::io::repeat(0)), 4096).next().unwrap();
        assert!(endless.is_err());
    }
}
