//! The prime directive, checked on the source: nothing under src/hooks/ may
//! name a way to spawn a process, open a network connection or write to the
//! file system. (clippy.toml also forbids `std::process::Command` in the
//! whole crate; this test covers what clippy does not: the network, file
//! writes, and any `std::process` use at all.)

use std::path::{Path, PathBuf};

const FORBIDDEN: &[&str] = &[
    "std::process",
    "process::Command",
    "Command::new",
    "std::net",
    "TcpStream",
    "UdpSocket",
    "fs::write",
    "File::create",
    "File::options",
    "OpenOptions",
    "create_dir",
    "remove_file",
    "remove_dir",
    "rename",
    "fs::copy",
    "hard_link",
    "symlink",
    "set_permissions",
    "set_len",
    "set_modified",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `file:line: name` for every forbidden name in `text`.
fn violations(file: &str, text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for name in FORBIDDEN {
            if line.contains(name) {
                found.push(format!("{file}:{}: {name}", n + 1));
            }
        }
    }
    found
}

/// The crate's bounded reader (`src/bounded.rs`) is on the hook path too.
/// It may build `OpenOptions` (to open without blocking), but read only:
/// none of the flags that write or create.
const READER_FORBIDDEN: &[&str] = &[
    ".write(",
    ".create(",
    ".create_new(",
    ".append(",
    ".truncate(",
];

#[test]
fn the_shared_reader_spawns_connects_and_writes_nothing() {
    let file = "src/bounded.rs";
    let whole = std::fs::read_to_string(file).unwrap();
    // Its unit tests (which make files to read) are not on the hook path.
    let text = whole.split("#[cfg(test)]\nmod tests").next().unwrap();
    assert!(text.len() < whole.len(), "{file}: tests module not found");
    let mut found: Vec<String> = violations(file, text)
        .into_iter()
        .filter(|v| !v.ends_with(": OpenOptions"))
        .collect();
    for (n, line) in text.lines().enumerate() {
        for name in READER_FORBIDDEN {
            if line.contains(name) {
                found.push(format!("{file}:{}: {name}", n + 1));
            }
        }
    }
    assert!(
        text.contains(".read(true)"),
        "{file} no longer opens read-only?"
    );
    assert!(
        found.is_empty(),
        "{file} must not name these:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_catches_what_it_should() {
    let sample = "use std::process::Command;\nlet _ = std::fs::write(p, b);\nlet s = std::net::TcpStream::connect(a);\nfs::rename(a, b);";
    let v = violations("x.rs", sample);
    for want in [
        "x.rs:1: std::process",
        "x.rs:2: fs::write",
        "x.rs:3: std::net",
        "x.rs:4: rename",
    ] {
        assert!(v.iter().any(|f| f == want), "missed {want}: {v:?}");
    }
    assert!(violations("x.rs", "std::fs::read(p); File::open(p);").is_empty());
}

#[test]
fn nothing_under_src_hooks_spawns_connects_or_writes() {
    let mut files = Vec::new();
    rust_files(Path::new("src/hooks"), &mut files);
    assert!(files.len() >= 5, "src/hooks looks empty: {files:?}");
    let mut all = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        all.extend(violations(&f.display().to_string(), &text));
    }
    assert!(
        all.is_empty(),
        "src/hooks must not name these:\n{}",
        all.join("\n")
    );
}

/// The hooks read one task record by name, never a listing of the state
/// folder: thousands of records must cost a hook nothing.
#[test]
fn nothing_under_src_hooks_lists_a_folder() {
    let mut files = Vec::new();
    rust_files(Path::new("src/hooks"), &mut files);
    let listing: Vec<String> = files
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            text.lines()
                .enumerate()
                .filter(|(_, l)| l.contains("read_dir") || l.contains("glob("))
                .map(|(n, _)| format!("{}:{}", f.display(), n + 1))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(listing.is_empty(), "src/hooks lists a folder: {listing:?}");
}
