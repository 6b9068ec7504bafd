//! The one way gk reads a file it did not write: the hooks (task_state.json,
//! gk.json), doctor (every settings scope, CLAUDE.md, gk.json, the state,
//! the registered programs) and install (every file of a plan, the running
//! program) all come here, so none of them can block on a named pipe, read
//! a device such as /dev/zero without end, or be fooled by a file swapped
//! between a check and the open.
//!
//! 1. **Open first, without blocking.** On Unix the open carries
//!    `O_NONBLOCK` (a FIFO with no writer opens at once instead of waiting
//!    for one) and `O_NOCTTY` (a terminal never becomes gk's controlling
//!    terminal). On Windows an open does not wait in this way: the file
//!    systems have no FIFOs, and a pipe or device name opens (or fails) at
//!    once; it is the *read* that could wait, and step 2 prevents it.
//! 2. **Check the open handle**, never the path: `fstat` on Unix must say
//!    regular file; on Windows `GetFileType` must say disk file (a pipe or a
//!    console, reached through a link, is refused) and the metadata must not
//!    be a folder. Whatever is checked is what gets read, so a swap between
//!    a check and the open cannot happen. (Windows does not open a folder
//!    as a file at all: it says "Access denied", which is reported as the
//!    folder it is.)
//! 3. **Read at most `limit` bytes** (one more to tell "too large"), from
//!    the handle that was checked.
//!
//! Nothing here writes, spawns or connects (the hooks use this module; see
//! `tests/it/hooks_prime_directive.rs`). A missing file costs one failed open.

use std::fs::{File, Metadata};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The most of a settings file or CLAUDE.md gk reads. Real ones are a few
/// KiB; anything near this is not a file a person keeps.
pub const TEXT_LIMIT: u64 = 16 << 20;

/// The most of a program gk reads (the running gk, an installed copy). A
/// release build is a few MiB.
pub const PROGRAM_LIMIT: u64 = 256 << 20;

/// What a successful read gave.
#[derive(Debug)]
pub struct Contents {
    pub bytes: Vec<u8>,
    /// Modification time, from the open handle.
    pub mtime: Option<SystemTime>,
}

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// No such file (also a dangling link).
    NotFound,
    /// A folder.
    Folder,
    /// A named pipe, socket or device (what it is, e.g. `a named pipe`):
    /// opened without blocking, checked, never read.
    NotRegular(&'static str),
    /// Longer than the limit: not read past it.
    TooLarge { limit: u64 },
    /// Any other failure (permissions, a link loop, a path through a file).
    Io(std::io::Error),
}

impl ReadError {
    /// The reason in a few words, for a message that names the file first
    /// (`<path>: <reason>`).
    pub fn reason(&self) -> String {
        match self {
            ReadError::NotFound => "no such file".to_string(),
            ReadError::Folder => "is a folder, not a file".to_string(),
            ReadError::NotRegular(what) => format!("not a regular file ({what})"),
            ReadError::TooLarge { limit } => format!("larger than {}", size_text(*limit)),
            ReadError::Io(e) => e.to_string(),
        }
    }

    /// As an `std::io::Error` carrying [`ReadError::reason`].
    pub fn into_io(self) -> std::io::Error {
        match self {
            ReadError::Io(e) => e,
            other => std::io::Error::new(other.kind(), other.reason()),
        }
    }

    /// `std::io::ErrorKind` of the failure, for callers that map kinds.
    pub fn kind(&self) -> std::io::ErrorKind {
        match self {
            ReadError::NotFound => std::io::ErrorKind::NotFound,
            ReadError::Folder => std::io::ErrorKind::IsADirectory,
            ReadError::NotRegular(_) | ReadError::TooLarge { .. } => {
                std::io::ErrorKind::InvalidData
            }
            ReadError::Io(e) => e.kind(),
        }
    }
}

/// `16 MiB`, `1 MiB`, `512 KiB`, `100 bytes`.
pub fn size_text(bytes: u64) -> String {
    if bytes >= 1 << 30 && bytes.is_multiple_of(1 << 30) {
        format!("{} GiB", bytes >> 30)
    } else if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} bytes")
    }
}

/// Read `path` (through links), a regular file of at most `limit` bytes.
pub fn read(path: &Path, limit: u64) -> Result<Contents, ReadError> {
    let (file, meta) = open(path)?;
    read_open(file, &meta, limit)
}

/// As [`read`], except that a symbolic link at `path` itself is not
/// followed: it is refused as `NotRegular("a symbolic link")`. For the
/// task records, whose folder Claude may write: a link planted there must
/// not make gk read a file outside it. On Unix the open itself refuses the
/// link (`O_NOFOLLOW`), so nothing can swap one in between a check and the
/// open; on Windows the link is looked for just before the open (a window
/// of one system call, in a folder only the user and Claude write).
pub fn read_no_link(path: &Path, limit: u64) -> Result<Contents, ReadError> {
    let (file, meta) = open_with(path, false)?;
    read_open(file, &meta, limit)
}

/// Files up to this size are read with one read call (see [`read_open`]).
const ONE_READ: u64 = 64 << 10;

fn read_open(file: File, meta: &Metadata, limit: u64) -> Result<Contents, ReadError> {
    // Room for the whole file as the handle reports it (and the one byte
    // more that tells "grown past the limit"), never more than the limit:
    // a settings file is then read in one call instead of in doubling
    // chunks from 32 bytes up. The size is a hint; the read decides.
    let hint = meta.len().min(limit).saturating_add(1);
    let mut bytes = Vec::with_capacity(usize::try_from(hint).unwrap_or(0));
    let mut file = file.take(limit.saturating_add(1));
    if meta.len() <= ONE_READ {
        // A small file (a settings or hooks file): the first read asks for
        // the whole file and one byte more. When it stops exactly at the
        // size the handle reported, that is the end (a regular file gives
        // less than asked only at its end), and the read that would return
        // 0 to say so is skipped: one system call a file, which is what a
        // hundred plugins' files cost the session check. Any other outcome
        // (a file grown or shrunk since, a short read elsewhere) reads on
        // to the end below.
        bytes.resize(bytes.capacity(), 0);
        let first = loop {
            match file.read(&mut bytes) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(ReadError::Io(e)),
            }
        };
        // Shrunk to what was read (`resize`: this module names no `truncate`).
        bytes.resize(first, 0);
        if first as u64 == meta.len() && first as u64 <= limit {
            return Ok(Contents {
                bytes,
                mtime: meta.modified().ok(),
            });
        }
    }
    // A large file (a program) is read in the standard way: zeroing tens
    // of MiB first and asking for them in one read made every install and
    // doctor run under Wine several times slower (29 s to 177 s for
    // tests/it/install_permissions.rs).
    file.read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge { limit });
    }
    Ok(Contents {
        bytes,
        mtime: meta.modified().ok(),
    })
}

/// Open `path` for reading and check the handle: a regular file, with its
/// metadata (from the handle). For readers that stream (the version
/// marker search in a program).
pub fn open(path: &Path) -> Result<(File, Metadata), ReadError> {
    open_with(path, true)
}

/// As [`open`], except that a symbolic link at `path` itself is refused
/// (as [`read_no_link`] does). For readers that stream a file they did not
/// write (the transcripts `gk report` counts).
pub fn open_no_link(path: &Path) -> Result<(File, Metadata), ReadError> {
    open_with(path, false)
}

fn open_with(path: &Path, follow: bool) -> Result<(File, Metadata), ReadError> {
    let file = open_no_wait(path, follow).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => ReadError::NotFound,
        std::io::ErrorKind::IsADirectory => ReadError::Folder,
        std::io::ErrorKind::PermissionDenied if refused_as_folder(path) => ReadError::Folder,
        _ if !follow && is_link_refusal(&e) => ReadError::NotRegular("a symbolic link"),
        _ if refused_as_special(&e) => {
            ReadError::NotRegular("a socket, or a device with no driver")
        }
        _ => ReadError::Io(e),
    })?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if meta.is_dir() {
        return Err(ReadError::Folder);
    }
    if let Some(what) = not_regular(&file, &meta) {
        return Err(ReadError::NotRegular(what));
    }
    Ok((file, meta))
}

#[cfg(unix)]
fn open_no_wait(path: &Path, follow: bool) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let no_follow = if follow { 0 } else { libc::O_NOFOLLOW };
    // Read only: no write, create or truncate flag is ever set here.
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | no_follow)
        .open(path)
}

/// `O_NOFOLLOW` on a link fails with ELOOP.
#[cfg(unix)]
fn is_link_refusal(e: &std::io::Error) -> bool {
    e.raw_os_error() == Some(libc::ELOOP)
}

#[cfg(not(unix))]
fn is_link_refusal(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::Other && e.to_string() == LINK_REFUSED
}

#[cfg(not(unix))]
const LINK_REFUSED: &str = "a symbolic link";

/// Windows refuses to open a folder as a file with "Access denied"
/// (`ERROR_ACCESS_DENIED`, on Windows itself as under Wine): that is a
/// folder, as Unix says with EISDIR, not a permission problem. Asked only
/// after the open failed (one more system call on that path alone), and
/// only to choose the words: nothing is read from what it finds.
#[cfg(windows)]
fn refused_as_folder(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_dir())
}

#[cfg(not(windows))]
fn refused_as_folder(_path: &Path) -> bool {
    false
}

/// Unix refuses to open a socket, and a device whose driver is absent,
/// with ENXIO: that is still "not a regular file", not an I/O failure.
#[cfg(unix)]
fn refused_as_special(e: &std::io::Error) -> bool {
    e.raw_os_error() == Some(libc::ENXIO)
}

#[cfg(not(unix))]
fn refused_as_special(_e: &std::io::Error) -> bool {
    false
}

#[cfg(not(unix))]
fn open_no_wait(path: &Path, follow: bool) -> std::io::Result<File> {
    // Windows: opening a pipe or device name does not wait for a peer (it
    // succeeds or fails at once), so a plain open is safe; the handle is
    // checked before anything is read.
    // `read_link` succeeds only on a link (read-only, one system call).
    if !follow && std::fs::read_link(path).is_ok() {
        return Err(std::io::Error::other(LINK_REFUSED));
    }
    File::open(path)
}

/// What the open handle is when it is not a regular file.
#[cfg(unix)]
fn not_regular(_file: &File, meta: &Metadata) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_file() {
        None
    } else if t.is_fifo() {
        Some("a named pipe")
    } else if t.is_socket() {
        Some("a socket")
    } else if t.is_char_device() {
        Some("a character device")
    } else if t.is_block_device() {
        Some("a block device")
    } else {
        Some("not a file")
    }
}

/// What the open handle is when it is not a file on disk. Windows metadata
/// calls a pipe or a console "a file", so the handle's own type is asked
/// (`GetFileType`: 1 disk, 2 character device or console, 3 pipe or socket).
#[cfg(windows)]
fn not_regular(file: &File, meta: &Metadata) -> Option<&'static str> {
    use std::os::windows::io::AsRawHandle;
    use windows_sys::Win32::Storage::FileSystem::{
        GetFileType, FILE_TYPE_CHAR, FILE_TYPE_DISK, FILE_TYPE_PIPE,
    };
    // SAFETY: the handle is open and owned by `file` for the whole call.
    let kind = unsafe { GetFileType(file.as_raw_handle()) };
    match kind {
        FILE_TYPE_DISK if meta.is_file() => None,
        FILE_TYPE_DISK => Some("not a file"),
        FILE_TYPE_CHAR => Some("a device or console"),
        FILE_TYPE_PIPE => Some("a pipe"),
        _ => Some("not a disk file"),
    }
}

#[cfg(not(any(unix, windows)))]
fn not_regular(_file: &File, meta: &Metadata) -> Option<&'static str> {
    (!meta.is_file()).then_some("not a file")
}

// ------------------------------------------------------------------
// Where a folder would be made: only looked at, nothing asked or written.
// Install, doctor and the session hook judge a folder to be made by it.

/// The nearest folder above `path` that exists, where the missing ones
/// would be made; only looked at, nothing asked or written. `Err` names
/// what is in the way: a file, a link to nothing (no folder can be made at
/// its place, and none is made through it), or nothing at all up to the
/// root (a drive that is not there).
pub fn nearest_folder(path: &Path) -> std::result::Result<PathBuf, (PathBuf, std::io::Error)> {
    use std::io::ErrorKind;
    // A bare file name's parent is "": the current folder.
    let mut dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    loop {
        match std::fs::metadata(dir) {
            Ok(meta) if meta.is_dir() => break,
            Ok(_) => {
                return Err((
                    dir.to_path_buf(),
                    std::io::Error::from(ErrorKind::NotADirectory),
                ))
            }
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                if let Ok(target) = std::fs::read_link(dir) {
                    return Err((dir.to_path_buf(), dangling(&target)));
                }
                match dir.parent() {
                    Some(up) if up.as_os_str().is_empty() => dir = Path::new("."),
                    Some(up) => dir = up,
                    None => return Err((dir.to_path_buf(), e)),
                }
            }
            Err(e) => return Err((dir.to_path_buf(), e)),
        }
    }
    Ok(dir.to_path_buf())
}

/// Why nothing can be made at a link whose target is not there: the
/// error's source, so that [`in_the_way`] knows it by type.
#[derive(Debug)]
struct LinkToNothing(PathBuf);

impl std::fmt::Display for LinkToNothing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let target = self.0.display().to_string();
        let shown = crate::text::one_line(&target, 1_000);
        write!(f, "a link to {shown}, which is not there")
    }
}

impl std::error::Error for LinkToNothing {}

fn dangling(target: &Path) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::NotFound,
        LinkToNothing(target.to_path_buf()),
    )
}

/// How `at` stands in the way, as [`nearest_folder`] (or
/// `change::fs::can_create`)
/// answered about it, in the words that follow its name: "is not a
/// folder", "is a link to …, which is not there", "does not exist" (no
/// folder above it at all: a drive that is not there). `None` when the
/// answer is of another kind (a folder that cannot be read or written).
pub fn in_the_way(e: &std::io::Error) -> Option<String> {
    if let Some(link) = e.get_ref().and_then(|i| i.downcast_ref::<LinkToNothing>()) {
        return Some(format!("is {link}"));
    }
    match e.kind() {
        std::io::ErrorKind::NotADirectory => Some("is not a folder".into()),
        std::io::ErrorKind::NotFound => Some("does not exist".into()),
        _ => None,
    }
}

/// An I/O error's reason without the OS's error number.
pub fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        std::io::ErrorKind::NotADirectory => "not a folder".into(),
        std::io::ErrorKind::ReadOnlyFilesystem => "a read-only file system".into(),
        _ => {
            let text = e.to_string();
            match text.rfind(" (os error ") {
                Some(at) if text.ends_with(')') => text[..at].to_string(),
                _ => text,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_file_up_to_its_limit() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, b"12345").unwrap();
        assert_eq!(read(&p, 5).unwrap().bytes, b"12345");
        assert!(read(&p, 5).unwrap().mtime.is_some());
        assert!(matches!(read(&p, 4), Err(ReadError::TooLarge { limit: 4 })));
        assert!(matches!(
            read(&dir.path().join("none"), 5),
            Err(ReadError::NotFound)
        ));
        assert!(matches!(read(dir.path(), 5), Err(ReadError::Folder)));
    }

    #[cfg(unix)]
    #[test]
    fn read_no_link_refuses_a_link_and_reads_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        std::fs::write(&outside, b"secret").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        let err = read_no_link(&link, 100).unwrap_err();
        assert_eq!(err.reason(), "not a regular file (a symbolic link)");
        assert_eq!(read(&link, 100).unwrap().bytes, b"secret");
        assert_eq!(read_no_link(&outside, 100).unwrap().bytes, b"secret");
    }

    /// A file whose size the system reports as 0 (the files of /proc) is
    /// still read to its end: a read that stops at the reported size is
    /// taken as the end only when it gave less than it asked for.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_file_longer_than_its_reported_size_is_read_whole() {
        let whole = std::fs::read("/proc/self/maps").unwrap();
        assert_eq!(std::fs::metadata("/proc/self/maps").unwrap().len(), 0);
        let got = read(Path::new("/proc/self/maps"), TEXT_LIMIT)
            .unwrap()
            .bytes;
        // The map changes between two reads only by a line or two.
        assert!(
            got.len() > 200 && got.len().abs_diff(whole.len()) < 1000,
            "{}",
            got.len()
        );
    }

    #[test]
    fn a_file_of_any_size_reads_byte_exact() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        for n in [0usize, 1, 4095, 4096, 4097, 70_000] {
            let data: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
            std::fs::write(&p, &data).unwrap();
            assert_eq!(read(&p, 70_000).unwrap().bytes, data, "{n} bytes");
        }
        std::fs::write(&p, vec![1u8; 70_001]).unwrap();
        assert!(matches!(read(&p, 70_000), Err(ReadError::TooLarge { .. })));
    }

    #[test]
    fn an_io_reason_has_no_error_number() {
        let e = std::io::Error::from_raw_os_error(40);
        assert!(e.to_string().contains("(os error 40)"), "{e}");
        let reason = io_reason(&e);
        assert!(
            !reason.contains("os error") && !reason.is_empty(),
            "{reason}"
        );
        assert_eq!(io_reason(&std::io::Error::other("plain")), "plain");
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(size_text(8 << 30), "8 GiB");
        assert_eq!(size_text(3 << 29), "1536 MiB");
        assert_eq!(size_text(16 << 20), "16 MiB");
        assert_eq!(size_text(512 << 10), "512 KiB");
        assert_eq!(size_text(100), "100 bytes");
    }

    #[cfg(unix)]
    #[test]
    fn a_named_pipe_is_opened_without_waiting_and_refused() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid C string; mkfifo only creates the node.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // No writer exists: a blocking open would wait here for ever.
        let err = read(&fifo, 100).unwrap_err();
        assert_eq!(err.reason(), "not a regular file (a named pipe)");
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_refused_unread() {
        for dev in ["/dev/zero", "/dev/null"] {
            let err = read(Path::new(dev), 100).unwrap_err();
            assert_eq!(err.reason(), "not a regular file (a character device)");
        }
    }
}
