//! What an installer puts beside the binary: completion scripts that load in their shell and
//! complete subcommands and engine names, and a man page that `man -l` renders.

use std::process::Command;

fn pkbench(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_pkbench")).args(args).output().expect("pkbench runs");
    assert!(out.status.success(), "pkbench {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

#[test]
fn the_bash_completion_loads_and_completes_subcommands_and_engines() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("pkbench.bash");
    std::fs::write(&script, pkbench(&["completions", "bash"])).unwrap();
    let probe = format!(
        "source '{}' || exit 3; complete -p pkbench || exit 4
         COMP_WORDS=(pkbench ru); COMP_CWORD=1; _pkbench pkbench ru pkbench; echo \"subcommands: ${{COMPREPLY[*]}}\"
         COMP_WORDS=(pkbench run --engine ''); COMP_CWORD=3; _pkbench pkbench '' --engine; echo \"engines: ${{COMPREPLY[*]}}\"",
        script.display()
    );
    let out = Command::new("bash").args(["--noprofile", "--norc", "-c", &probe]).output().expect("bash runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "bash: {} {}", text, String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("subcommands: run"), "{text}");
    assert!(text.contains("engines: sqlite postgres mariadb"), "{text}");
}

#[test]
fn every_shell_gets_a_script() {
    for shell in ["zsh", "fish", "powershell", "elvish"] {
        let script = pkbench(&["completions", shell]);
        assert!(script.contains("pkbench") && script.contains("predict"), "{shell}: {script}");
    }
}

/// The man page test (tier two: it needs man-db).
#[cfg(feature = "server-tests")]
mod man_page {
    use super::*;
    use std::io::Write;
    use std::process::Stdio;

    #[test]
    fn the_man_page_renders_with_every_subcommand() {
        let page = pkbench(&["man"]);
        let mut man = Command::new("man")
            .args(["-l", "-"])
            .env("MANWIDTH", "100")
            .env("MAN_KEEP_FORMATTING", "0")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("man is installed (scripts/setup-test-deps installs man-db)");
        man.stdin.take().unwrap().write_all(page.as_bytes()).unwrap();
        let out = man.wait_with_output().unwrap();
        let text = plain(&String::from_utf8_lossy(&out.stdout));
        assert!(out.status.success(), "man -l: {}", String::from_utf8_lossy(&out.stderr));
        assert!(
            String::from_utf8_lossy(&out.stderr).trim().is_empty(),
            "man warned: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        for section in ["NAME", "SYNOPSIS", "PKBENCH RUN", "PKBENCH DOCTOR", "PKBENCH PREDICT", "--engine"] {
            assert!(text.contains(section), "no '{section}' in the rendered page:\n{text}");
        }
    }

    /// Text without man's overstrike formatting (`N\x08N` for bold, `_\x08x` for underline).
    fn plain(text: &str) -> String {
        let mut out: Vec<char> = Vec::with_capacity(text.len());
        for c in text.chars() {
            if c == '\x08' {
                out.pop();
            } else {
                out.push(c);
            }
        }
        out.into_iter().collect()
    }
}
