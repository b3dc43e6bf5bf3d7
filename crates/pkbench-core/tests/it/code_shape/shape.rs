//! Just enough of Rust's lexical structure to check the code's shape: comments and literals
//! blanked out, test-only items removed, `match` arms and `crate::` paths found.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;

/// One source file: its path (as reported) and its code with comments, string and character
/// literals, and `#[cfg(test)]` items blanked out (same length and lines as the original).
pub struct SourceFile {
    /// The path, from the crate's folder (`pkbench-core/src/engines/kind.rs`).
    pub path: String,
    code: String,
    /// Test modules declared in this file (`#[cfg(test)] mod tests;`).
    test_modules: Vec<String>,
}

impl SourceFile {
    /// Every `.rs` file under `root` (a crate's `src`), in path order.
    pub fn all_in(root: &Path) -> Vec<SourceFile> {
        let crate_dir = root.parent().and_then(Path::file_name).map(|n| n.to_string_lossy().into_owned());
        let mut files = Vec::new();
        let mut folders = vec![root.to_path_buf()];
        while let Some(folder) = folders.pop() {
            let entries = std::fs::read_dir(&folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
            for entry in entries {
                let path = entry.expect("a readable folder entry").path();
                if path.is_dir() {
                    folders.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                    let inside = path.strip_prefix(root).expect("a file under the root").to_string_lossy();
                    let shown = format!("{}/src/{inside}", crate_dir.as_deref().unwrap_or("."));
                    files.push(SourceFile::from_text(&shown, &text));
                }
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        files
    }

    /// A file from its text.
    pub fn from_text(path: &str, text: &str) -> SourceFile {
        let mut code = blank_comments_and_literals(text);
        let test_modules = remove_test_items(&mut code);
        SourceFile {
            path: path.to_string(),
            code: String::from_utf8(code).expect("still UTF-8 after blanking"),
            test_modules,
        }
    }

    fn line_of(&self, at: usize) -> usize {
        self.code.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1
    }

    /// The path inside `src/`, split into its parts (`["engines", "kind.rs"]`).
    fn parts_in_src(&self) -> Vec<&str> {
        let parts: Vec<&str> = self.path.split('/').collect();
        let src = parts.iter().rposition(|p| *p == "src").map_or(0, |i| i + 1);
        parts[src..].to_vec()
    }

    /// The module path this file is (`["engines", "kind"]`; `mod.rs` is its folder's module).
    fn module_path(&self) -> Vec<String> {
        let mut parts: Vec<String> =
            self.parts_in_src().iter().map(|p| p.trim_end_matches(".rs").to_string()).collect();
        if parts.last().is_some_and(|p| p == "mod" || p == "lib" || p == "main") {
            parts.pop();
        }
        parts
    }
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// `text` with comments and string/char literals replaced by spaces (newlines kept).
fn blank_comments_and_literals(text: &str) -> Vec<u8> {
    let src = text.as_bytes();
    let mut out = src.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for b in &mut out[from..to.min(src.len())] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    let mut i = 0;
    while i < src.len() {
        let end = literal_or_comment_end(src, i);
        if end > i {
            blank(&mut out, i, end);
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

/// Where the comment or literal starting at `i` ends, or `i` if none starts there.
fn literal_or_comment_end(src: &[u8], i: usize) -> usize {
    let at = |k: usize| src.get(k).copied().unwrap_or(0);
    let after_ident = i > 0 && is_ident(src[i - 1]);
    match at(i) {
        b'/' if at(i + 1) == b'/' => src[i..].iter().position(|&b| b == b'\n').map_or(src.len(), |p| i + p),
        b'/' if at(i + 1) == b'*' => block_comment_end(src, i),
        b'"' => string_end(src, i + 1),
        b'b' if !after_ident && at(i + 1) == b'\'' => char_literal_end(src, i + 1),
        b'r' | b'b' if !after_ident => {
            let start = if at(i) == b'b' && at(i + 1) == b'r' { i + 2 } else { i + 1 };
            let hashes = src[start..].iter().take_while(|&&b| b == b'#').count();
            if at(start + hashes) != b'"' || (at(i) == b'b' && start == i + 1 && hashes > 0) {
                return i;
            }
            if at(i) == b'b' && start == i + 1 {
                return string_end(src, start + 1);
            }
            let closing: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
            let body = start + hashes + 1;
            src[body..]
                .windows(closing.len())
                .position(|w| w == closing)
                .map_or(src.len(), |p| body + p + closing.len())
        }
        b'\'' if !after_ident => char_literal_end(src, i),
        _ => i,
    }
}

fn block_comment_end(src: &[u8], i: usize) -> usize {
    let (mut depth, mut k) = (0usize, i);
    while k + 1 < src.len() {
        if src[k] == b'/' && src[k + 1] == b'*' {
            depth += 1;
            k += 2;
        } else if src[k] == b'*' && src[k + 1] == b'/' {
            depth -= 1;
            k += 2;
            if depth == 0 {
                return k;
            }
        } else {
            k += 1;
        }
    }
    src.len()
}

/// The end of a string whose body starts at `body` (after the opening quote).
fn string_end(src: &[u8], body: usize) -> usize {
    let mut k = body;
    while k < src.len() {
        match src[k] {
            b'\\' => k += 2,
            b'"' => return k + 1,
            _ => k += 1,
        }
    }
    src.len()
}

/// The end of a character literal at `i`, or `i` for a lifetime or label (`'a`).
fn char_literal_end(src: &[u8], i: usize) -> usize {
    let Some(&first) = src.get(i + 1) else { return i };
    if first == b'\\' {
        return src[i + 2..].iter().position(|&b| b == b'\'').map_or(src.len(), |p| i + 2 + p + 1);
    }
    let len = match first {
        0..0x80 => 1,
        0xC0..0xE0 => 2,
        0xE0..0xF0 => 3,
        _ => 4,
    };
    if src.get(i + 1 + len) == Some(&b'\'') { i + 2 + len } else { i }
}

/// Blanks every `#[cfg(test)]` item out of `code`; returns the modules declared that way in
/// files of their own (`#[cfg(test)] mod tests;`).
fn remove_test_items(code: &mut [u8]) -> Vec<String> {
    const MARK: &[u8] = b"#[cfg(test)]";
    let mut declared = Vec::new();
    let mut from = 0;
    while let Some(p) = code[from..].windows(MARK.len()).position(|w| w == MARK) {
        let start = from + p;
        let Some(end) = item_end(code, start + MARK.len()) else { break };
        let item = String::from_utf8_lossy(&code[start + MARK.len()..end]).into_owned();
        let words: Vec<&str> =
            item.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
        if item.trim_end().ends_with(';')
            && let Some(i) = words.iter().position(|w| *w == "mod")
            && let Some(name) = words.get(i + 1)
        {
            declared.push((*name).to_string());
        }
        for b in &mut code[start..end] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        from = end;
    }
    declared
}

/// The end of the item starting at `from`: after its `;`, or after the `}` closing its first
/// `{`, whichever comes first.
fn item_end(code: &[u8], from: usize) -> Option<usize> {
    let mut k = from;
    while k < code.len() {
        match code[k] {
            b';' => return Some(k + 1),
            b'{' => return closing(code, k).map(|c| c + 1),
            _ => k += 1,
        }
    }
    None
}

/// The position of the bracket closing the one at `open` (`(`, `[` or `{`).
fn closing(code: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, &b) in code.iter().enumerate().skip(open) {
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// Positions of `word` in `code` as a whole word.
fn word_positions<'a>(code: &'a [u8], word: &'a str) -> impl Iterator<Item = usize> + 'a {
    let w = word.as_bytes();
    (0..code.len().saturating_sub(w.len() - 1)).filter(move |&k| {
        &code[k..k + w.len()] == w
            && (k == 0 || !is_ident(code[k - 1]))
            && code.get(k + w.len()).is_none_or(|&b| !is_ident(b))
    })
}

/// One arm of a `match`: its pattern (with any guard) and where the pattern starts.
struct Arm {
    pattern: String,
    at: usize,
}

/// The arms of the `match` whose keyword is at `at`, if its body can be found.
fn match_arms(code: &[u8], at: usize) -> Option<Vec<Arm>> {
    let mut k = at + "match".len();
    let mut depth = 0usize;
    let open = loop {
        match *code.get(k)? {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth = depth.checked_sub(1)?,
            b'{' if depth == 0 => break k,
            b';' => return None,
            _ => {}
        }
        k += 1;
    };
    let close = closing(code, open)?;
    let mut arms = Vec::new();
    let mut k = open + 1;
    loop {
        while k < close && code[k].is_ascii_whitespace() {
            k += 1;
        }
        if k >= close {
            return Some(arms);
        }
        let arrow = arm_arrow(code, k, close)?;
        arms.push(Arm { pattern: String::from_utf8_lossy(&code[k..arrow]).trim().to_string(), at: k });
        k = arm_end(code, arrow + 2, close)?;
    }
}

/// The `=>` ending the pattern that starts at `from`.
fn arm_arrow(code: &[u8], from: usize, close: usize) -> Option<usize> {
    let mut k = from;
    while k + 1 < close {
        match code[k] {
            b'(' | b'[' | b'{' => k = closing(code, k)? + 1,
            b'=' if code[k + 1] == b'>' => return Some(k),
            _ => k += 1,
        }
    }
    None
}

/// Where the next arm starts, given the start of this arm's expression.
fn arm_end(code: &[u8], from: usize, close: usize) -> Option<usize> {
    let mut k = from;
    while k < close && code[k].is_ascii_whitespace() {
        k += 1;
    }
    if code.get(k) == Some(&b'{') {
        k = closing(code, k)? + 1;
        while k < close && code[k].is_ascii_whitespace() {
            k += 1;
        }
        return Some(if code.get(k) == Some(&b',') { k + 1 } else { k });
    }
    while k < close {
        match code[k] {
            b'(' | b'[' | b'{' => k = closing(code, k)? + 1,
            b',' => return Some(k + 1),
            _ => k += 1,
        }
    }
    Some(close)
}

/// Whether an arm's pattern matches everything left: `_` or a bare binding, with no guard.
fn is_catch_all(pattern: &str) -> bool {
    let words: Vec<&str> = pattern.trim_start_matches('|').split_whitespace().collect();
    let binding = match words.as_slice() {
        [one] => *one,
        ["mut" | "ref", one] => *one,
        _ => return false,
    };
    binding == "_"
        || (binding.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
            && binding.bytes().all(is_ident)
            && binding != "true"
            && binding != "false")
}

/// `path:line` of each catch-all arm of a `match` whose other arms name `EngineKind::` variants.
pub fn catch_all_engine_arms(file: &SourceFile) -> Vec<String> {
    let code = file.code.as_bytes();
    let mut found = Vec::new();
    for at in word_positions(code, "match") {
        let Some(arms) = match_arms(code, at) else { continue };
        if !arms.iter().any(|a| a.pattern.contains("EngineKind::")) {
            continue;
        }
        for arm in arms.iter().filter(|a| is_catch_all(&a.pattern)) {
            found.push(format!("{}:{}", file.path, file.line_of(arm.at)));
        }
    }
    found
}

/// The top-level modules each `crate::` path (or `super::` path reaching the crate root) in
/// `file` names, with the line of its first use; `aliases` maps items the crate root re-exports
/// to the module defining them.
fn modules_used(
    file: &SourceFile,
    modules: &BTreeSet<String>,
    aliases: &BTreeMap<String, String>,
) -> BTreeMap<String, usize> {
    let code = file.code.as_bytes();
    let depth = file.module_path().len();
    let mut used = BTreeMap::new();
    let mut note = |name: &str, at: usize| {
        let module = if modules.contains(name) { Some(name) } else { aliases.get(name).map(String::as_str) };
        if let Some(module) = module {
            used.entry(module.to_string()).or_insert_with(|| file.line_of(at));
        }
    };
    let mut starts: Vec<usize> =
        word_positions(code, "crate").filter(|&k| code[k..].starts_with(b"crate::")).map(|k| k + 7).collect();
    for k in word_positions(code, "super") {
        let supers = code[k..].chunks(7).take_while(|c| *c == b"super::").count();
        let leading = k < 2 || &code[k - 2..k] != b"::";
        if leading && depth > 0 && supers == depth {
            starts.push(k + 7 * supers);
        }
    }
    for k in starts {
        if code.get(k) == Some(&b'{') {
            let Some(end) = closing(code, k) else { continue };
            let group = String::from_utf8_lossy(&code[k + 1..end]).into_owned();
            let mut nested = 0usize;
            let mut item_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => nested += 1,
                    '}' => nested -= 1,
                    ',' if nested == 0 => item_start = true,
                    c if item_start && (c.is_ascii_alphanumeric() || c == '_') && nested == 0 => {
                        let name: String =
                            group[i..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                        note(&name, k);
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            let name: String = code[k..].iter().take_while(|&&b| is_ident(b)).map(|&b| char::from(b)).collect();
            note(&name, k);
        }
    }
    used
}

/// The items `lib.rs` re-exports (`pub use error::Error;`), by the module defining them.
fn root_aliases(lib: &SourceFile) -> BTreeMap<String, String> {
    let mut aliases = BTreeMap::new();
    for statement in lib.code.split(';') {
        let Some(path) = statement.trim().strip_prefix("pub use ") else { continue };
        let Some((module, items)) = path.split_once("::") else { continue };
        for item in items.trim_matches(|c| c == '{' || c == '}').split(',') {
            let item = item.split(" as ").last().unwrap_or_default().trim();
            aliases.insert(item.to_string(), module.trim().to_string());
        }
    }
    aliases
}

/// Each cycle among the top-level modules of a crate (its `src` files), one line per group of
/// modules that reach each other: the shortest cycle through the first of them, with the line
/// each step is taken on.
pub fn module_cycles(files: &[SourceFile]) -> Vec<String> {
    cycles_in(&module_edges(files))
}

/// Which top-level module uses which, with the first place it does: `from -> to -> path:line`.
pub type ModuleEdges = BTreeMap<String, BTreeMap<String, String>>;

/// The uses between the top-level modules of a crate (its `src` files), test code left out.
pub fn module_edges(files: &[SourceFile]) -> ModuleEdges {
    let lib = files.iter().find(|f| f.parts_in_src() == ["lib.rs"]);
    let aliases = lib.map(root_aliases).unwrap_or_default();
    let modules: BTreeSet<String> = files.iter().filter_map(|f| f.module_path().first().cloned()).collect();
    let test_files = test_only_files(files);
    let mut edges = ModuleEdges::new();
    for file in files.iter().filter(|f| !test_files.contains(&f.path)) {
        let Some(from) = file.module_path().first().cloned() else { continue };
        for (to, line) in modules_used(file, &modules, &aliases) {
            if to != from {
                edges.entry(from.clone()).or_default().entry(to).or_insert_with(|| format!("{}:{line}", file.path));
            }
        }
    }
    edges
}

/// [`module_cycles`] of a module graph.
pub fn cycles_in(edges: &ModuleEdges) -> Vec<String> {
    let modules: BTreeSet<&String> = edges.keys().chain(edges.values().flat_map(BTreeMap::keys)).collect();
    let mut reported = BTreeSet::new();
    let mut cycles = Vec::new();
    for start in modules {
        if reported.contains(start) {
            continue;
        }
        let Some(cycle) = shortest_cycle(edges, start) else { continue };
        let mut line = start.clone();
        for pair in cycle.windows(2) {
            line.push_str(&format!(" -> {} ({})", pair[1], edges[&pair[0]][&pair[1]]));
        }
        reported.extend(members_reaching(edges, start));
        cycles.push(line);
    }
    cycles
}

/// Files that only tests compile: those `#[cfg(test)] mod name;` declares, and their folders.
fn test_only_files(files: &[SourceFile]) -> BTreeSet<String> {
    let mut prefixes = Vec::new();
    for file in files {
        let mut dir: Vec<&str> = file.path.split('/').collect();
        let name = dir.pop().unwrap_or_default();
        let owner = name.trim_end_matches(".rs");
        if !matches!(owner, "mod" | "lib" | "main") {
            dir.push(owner);
        }
        for module in &file.test_modules {
            let base = format!("{}/{module}", dir.join("/"));
            prefixes.push(format!("{base}.rs"));
            prefixes.push(format!("{base}/"));
        }
    }
    files.iter().filter(|f| prefixes.iter().any(|p| f.path.starts_with(p.as_str()))).map(|f| f.path.clone()).collect()
}

/// The shortest path from `start` back to itself, as the modules on it (first and last `start`).
fn shortest_cycle(edges: &ModuleEdges, start: &str) -> Option<Vec<String>> {
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        for next in edges.get(node).into_iter().flat_map(BTreeMap::keys) {
            if next == start {
                let mut path = vec![start.to_string()];
                let mut at = node;
                while at != start {
                    path.push(at.to_string());
                    at = came_from[at];
                }
                path.push(start.to_string());
                path.reverse();
                return Some(path);
            }
            if !came_from.contains_key(next.as_str()) {
                came_from.insert(next, node);
                queue.push_back(next);
            }
        }
    }
    None
}

/// The modules on some cycle through `start` (those it reaches that reach it back).
fn members_reaching(edges: &ModuleEdges, start: &str) -> BTreeSet<String> {
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_string()];
        while let Some(node) = stack.pop() {
            for next in edges.get(&node).into_iter().flat_map(BTreeMap::keys) {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    reach(start).into_iter().filter(|m| reach(m).contains(start)).collect()
}

/// `path:line` of each `unsafe` in `file`'s code (comments and literals left out).
pub fn unsafe_uses(file: &SourceFile) -> Vec<String> {
    word_positions(file.code.as_bytes(), "unsafe").map(|at| format!("{}:{}", file.path, file.line_of(at))).collect()
}
