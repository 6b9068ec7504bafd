//! The one planner of what gk puts on a machine: from what gk wants there
//! ([`Desired`]: the machine's facts and a [`Channel`]) and the files as
//! they are now, the changes for a set of [`Part`]s, in one of two
//! [`Direction`]s. Install plans every part in, `gk doctor --fix` the parts
//! its findings name, uninstall every part out (the inverse of the same
//! parts); `--fix`'s removal of gk's copies from other settings files is
//! the same removal, asked for by [`TakeOut`]. The channel says which
//! parts there are and where each lives (the user's settings, or a managed
//! drop-in and the machine-wide program); each command only chooses the
//! parts and the channel; the plan goes through [`crate::change::apply`].
//! Nothing here writes.

use std::path::{Path, PathBuf};

use super::managed::DropIn;
use super::parts::{Part, Parts, Site};
use super::{binary, is_link, on_disk_places, record, Done};
use crate::change::fs::{read_current, read_text};
use crate::change::plan::{FileChange, Plan, ReplaceStrategy};
use crate::edit::settings_keys::StatusLine;
use crate::edit::{claude_md, settings_edit, settings_keys};
use crate::error::Result;
use crate::hookcmd::{HookKind, ShellForm};

/// Which way a plan goes for its parts: put in, or taken out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Add,
    Remove,
}

/// Where gk puts its hooks, and so which [`Part`]s there are and where
/// each lives.
#[derive(Debug, Clone)]
pub enum Channel<'a> {
    /// The user's settings: every part, the program in `<claude dir>/hooks/`.
    User,
    /// A managed drop-in for every user of the machine: the registrations
    /// in the drop-in and the machine-wide program (neither with
    /// `--output`: the drop-in alone); no permission rules, status line,
    /// CLAUDE.md or state file, which a drop-in cannot carry per user.
    Managed(DropIn<'a>),
}

impl Channel<'_> {
    /// The parts this channel carries: a request for others plans nothing.
    pub fn parts(&self) -> Parts {
        let Channel::Managed(dropin) = self else {
            return Parts::ALL;
        };
        let parts = Parts::default().with(Part::Registrations);
        match dropin.program() {
            Some(_) => parts.with(Part::Program),
            None => parts,
        }
    }

    /// Where the channel's hooks run gk from (`None`: the channel puts no
    /// program on this machine), and what a plan says of it put in and
    /// taken out.
    fn program(&self, site: &Site) -> Option<(PathBuf, [&'static str; 2])> {
        match self {
            Channel::User => Some((
                site.paths.binary(site.ctx.os),
                ["the program gk's hooks run", "the gk program"],
            )),
            Channel::Managed(dropin) => dropin.program().map(|p| {
                let why = [
                    "the program every user's hooks run",
                    "the machine-wide gk program",
                ];
                (p.to_path_buf(), why)
            }),
        }
    }
}

/// What gk wants on this machine through one channel: the facts its parts
/// are spelt from, the form of its hook commands in the user's settings,
/// the permission rules for the task records (`None`: none can name the
/// folder, none are wanted, or the channel carries none), and the channel.
#[derive(Debug, Clone)]
pub struct Desired<'a> {
    pub site: Site<'a>,
    pub shell: ShellForm,
    pub rules: Option<[String; 2]>,
    pub channel: Channel<'a>,
}

impl<'a> Desired<'a> {
    /// The managed channel on machine `dropin.m`: the drop-in's hooks are
    /// spelt in the exec form ([`super::managed::wanted_hooks`]).
    pub fn managed(dropin: DropIn<'a>) -> Desired<'a> {
        Desired {
            site: Site::of(dropin.m),
            shell: ShellForm::Exec,
            rules: None,
            channel: Channel::Managed(dropin),
        }
    }
}

/// The command a plan is for: what it says of each change, and the few
/// policies that differ between them for the same part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    /// `gk install`: every file is listed, one already as planned too; the
    /// install record notes what settings.json held before gk.
    Install,
    /// `gk doctor --fix`: only what its findings name changes; the state
    /// file is only created, CLAUDE.md keeps one block.
    Fix,
    /// `gk uninstall`.
    Uninstall,
}

/// gk's registrations taken out of settings files (the inverse of
/// [`Part::Registrations`] outside the file gk puts them in). When the
/// user's settings is among `from`, its copies go before anything is put
/// in, and gk's own registrations are not put back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TakeOut {
    pub from: Vec<PathBuf>,
    /// Only the entries of these hooks go; empty: every one of gk's. With
    /// the registrations asked for too, this holds for user settings only:
    /// from the other files every entry of gk's goes (user settings keeps
    /// the one copy of each hook no plugin carries).
    pub kinds: Vec<HookKind>,
    /// Why, in the words of the plan.
    pub reason: String,
}

impl TakeOut {
    fn apply(
        &self,
        path: &Path,
        text: &str,
        ctx: &crate::hookcmd::CommandContext,
    ) -> Result<String> {
        self.apply_keeping(path, text, ctx, &[])
    }

    /// [`TakeOut::apply`], giving back the containers in `keep` as
    /// install found them (the user's settings: install's note).
    fn apply_keeping(
        &self,
        path: &Path,
        text: &str,
        ctx: &crate::hookcmd::CommandContext,
        keep: &[settings_edit::EmptyContainer],
    ) -> Result<String> {
        if self.kinds.is_empty() {
            return settings_edit::remove_hooks_keeping(path, text, ctx, keep);
        }
        settings_edit::remove_hooks_of_keeping(path, text, ctx, &self.kinds, keep)
    }
}

/// How the program part is put in: its bytes, read only when needed, and
/// whether the program in place now (its bytes, if any) gives way.
pub struct Program<'a> {
    pub bytes: &'a dyn Fn() -> Result<Vec<u8>>,
    pub replace: &'a dyn Fn(Option<&[u8]>) -> bool,
}

/// What to plan: the parts, which way, for which command.
pub struct Request<'a> {
    pub direction: Direction,
    pub by: By,
    pub parts: Parts,
    pub take_out: TakeOut,
    /// [`Part::Program`] put in; unused when taking out.
    pub program: Option<Program<'a>>,
}

/// What a plan did to the user's settings, for the notes a command adds.
#[derive(Debug, Clone, Default)]
pub struct Planned {
    /// Whose status line the settings hold now (`None`: none was asked for).
    pub line: Option<StatusLine>,
    /// The settings' text as planned (`None`: not planned, or removed).
    pub settings: Option<String>,
    pub done: Done,
    pub notes: Vec<String>,
}

/// The parts that live in the user's settings.
const IN_SETTINGS: [Part; 3] = [Part::Registrations, Part::PermissionRules, Part::StatusLine];

/// Plan `request`'s parts of `desired` into `plan`, each file read as it is
/// now. The one planner install, `gk doctor --fix` and uninstall share.
pub fn plan(desired: &Desired, request: &Request, plan: &mut Plan) -> Result<Planned> {
    match request.direction {
        Direction::Add => put_in(desired, request, plan),
        Direction::Remove => take_out(desired, request, plan),
    }
}

fn put_in(desired: &Desired, request: &Request, plan: &mut Plan) -> Result<Planned> {
    let site = &desired.site;
    let by = request.by;
    let parts = request.parts.within(desired.channel.parts());
    let mut planned = Planned::default();
    if let Some((bin, [why, _])) = desired.channel.program(site) {
        if let (true, Some(program)) = (parts.has(Part::Program), &request.program) {
            let os = site.ctx.os;
            plan.changes.extend(binary::put_in(
                &bin,
                os,
                program.bytes,
                program.replace,
                matches!(desired.channel, Channel::Managed(_)),
                why,
            )?);
        }
        if by == By::Install {
            plan.changes.extend(binary::leftover_copies(&bin)?);
        }
    }
    if parts.has(Part::StateFile) {
        let change = match by {
            By::Fix => site.state_file("the task state the hooks read, in the clean form")?,
            _ => site.state_file("task state, created only when missing")?,
        };
        // --fix: only a file that is not there; one with content is the user's.
        if by != By::Fix || change.old.is_none() {
            plan.push(change);
        }
    }
    if parts.has(Part::ClaudeMd) {
        plan.push(match by {
            By::Fix => site.claude_md(true, "the Task State Convention block")?,
            _ => site.claude_md(false, "Task State Convention block")?,
        });
    }
    match &desired.channel {
        Channel::User => put_in_user(desired, request, parts, plan, &mut planned)?,
        Channel::Managed(dropin) if parts.has(Part::Registrations) => {
            plan.push(dropin.put_in()?);
            plan.changes.extend(dropin.record_in()?);
        }
        Channel::Managed(_) => {}
    }
    Ok(planned)
}

/// The user channel's registrations step: the hooks read back, the
/// settings parts put into the user's settings, gk's copies taken out of
/// the other files [`TakeOut`] names.
fn put_in_user(
    desired: &Desired,
    request: &Request,
    parts: Parts,
    plan: &mut Plan,
    planned: &mut Planned,
) -> Result<()> {
    let site = &desired.site;
    if request.by == By::Install {
        // Read back before anything else: a <claude dir> no command can
        // name stops the install here, wherever the hooks are registered.
        site.hooks(desired.shell)?;
    }
    let user = site.paths.settings();
    let takes_user = request.take_out.from.contains(&user);
    if IN_SETTINGS.iter().any(|p| parts.has(*p)) || takes_user {
        put_in_user_settings(desired, request, takes_user, plan, planned)?;
    }
    // Outside user settings no copy of gk's is the one kept: with the
    // registrations asked for (user settings gets each hook no plugin
    // carries), every entry of gk's goes there, not only the carried ones'.
    let every = TakeOut {
        kinds: Vec::new(),
        ..request.take_out.clone()
    };
    let elsewhere = if request.parts.has(Part::Registrations) {
        &every
    } else {
        &request.take_out
    };
    for path in request.take_out.from.iter().filter(|p| **p != user) {
        let Some(old) = read_text(path)? else {
            continue;
        };
        let new = elsewhere.apply(path, &old, site.ctx)?;
        plan.push(FileChange::text(
            path,
            Some(old),
            Some(new),
            &request.take_out.reason,
        ));
    }
    Ok(())
}

/// The user's settings with gk's copies taken out (when asked) and the
/// settings parts put in: one change, one diff; then the install record
/// of what gk filled (install: and what the file held before gk).
fn put_in_user_settings(
    desired: &Desired,
    request: &Request,
    takes_user: bool,
    plan: &mut Plan,
    planned: &mut Planned,
) -> Result<()> {
    let site = &desired.site;
    let user = site.paths.settings();
    let old = read_text(&user)?;
    let mut text = old.clone().unwrap_or_default();
    let mut taken_out = false;
    // The install record, read once for all this plan asks of it.
    let record_path = site.paths.install_record();
    let record = record::load(&record_path)?;
    let noted = record.noted(&user);
    if let (true, Some(on_disk)) = (takes_user, &old) {
        // Containers install found empty stay, emptied back as they were.
        let keep = &noted.containers;
        text = on_disk_places(Some(on_disk), on_disk, |t| {
            request.take_out.apply_keeping(&user, t, site.ctx, keep)
        })?;
        taken_out = text != *on_disk;
    }
    // With every one of the user's own copies going, none is put back;
    // with only some hooks' going (plugins carry those), the others are,
    // and never those.
    let mut parts = Parts::default();
    for part in IN_SETTINGS.into_iter().filter(|p| request.parts.has(*p)) {
        parts.insert(part);
    }
    if takes_user && request.take_out.kinds.is_empty() {
        parts.remove(Part::Registrations);
    }
    let by_plugin: Vec<HookKind> = (site.by_plugin.iter())
        .chain(&request.take_out.kinds)
        .copied()
        .collect();
    let site = &Site {
        by_plugin: &by_plugin,
        ..*site
    };
    let (text, filled, line, mut done) = site.user_settings(
        parts,
        desired.shell,
        desired.rules.as_ref(),
        old.as_deref(),
        text,
    )?;
    done.taken_out = taken_out;
    let reason = match request.by {
        By::Install => install_reason(&done, takes_user),
        _ => fix_reason(desired, request, parts, takes_user),
    };
    // What the file held before gk, for uninstall, whichever command puts
    // gk in (`--fix` too: a settings.json it creates is one uninstall
    // removes, a blank one comes back blank, rules the user had stay).
    let before = rules_there_before(site, &user, old.as_deref(), noted.there)?;
    let blank = old.clone().filter(|t| t.trim().is_empty());
    let created = old.is_none();
    let record_change = record.note_with_rules(&user, &filled, &before, blank.as_deref(), created);
    // The note first: a run killed between the two has noted what
    // settings.json held, and the next run, which finds the note, keeps it.
    plan.push(record_change);
    plan.push(FileChange::text(&user, old, Some(text.clone()), &reason));
    *planned = Planned {
        line,
        settings: Some(text),
        done,
        notes: Vec::new(),
    };
    Ok(())
}

/// What install's edit of settings.json does, in the words of its plan:
/// only the parts its diff shows (an install that only adds the status
/// line says only that).
fn install_reason(done: &Done, elsewhere: bool) -> String {
    let mut parts = Vec::new();
    if done.taken_out {
        parts.push("take out gk's hooks (registered elsewhere)");
    }
    if done.hooks {
        parts.push("register the prompt, Stop and session hooks");
    }
    if done.rules {
        parts.push("let Claude write its task records");
    }
    if done.statusline {
        parts.push("show the task state in the status line");
    }
    match (parts.is_empty(), elsewhere) {
        (false, _) => parts.join("; "),
        (true, false) => "gk's hooks, permission rules and status line".into(),
        (true, true) => "the hooks are registered elsewhere".into(),
    }
}

/// What `--fix`'s edit of the user's settings does: the parts it was
/// asked for, in the order they are made.
fn fix_reason(desired: &Desired, request: &Request, parts: Parts, takes_user: bool) -> String {
    let mut reasons: Vec<&str> = Vec::new();
    if parts.has(Part::Registrations) {
        reasons.push("one canonical entry per gk hook; variants and Python hooks removed");
    }
    if takes_user {
        reasons.push(&request.take_out.reason);
    }
    if parts.has(Part::PermissionRules) && desired.rules.is_some() {
        reasons.push("let Claude write its task records without asking");
    }
    if parts.has(Part::StatusLine) {
        reasons.push("gk's status line spelled for the shell Claude Code runs it in");
    }
    reasons.join("; ")
}

/// gk's permission rules for the state folder that settings.json holds
/// before gk was ever installed there (none once gk's hooks are in it:
/// then the rules are gk's own), for uninstall to leave in place. None
/// either once gk's install record is there: gk was installed here, what
/// the user had before it is noted already, and gk's rules found without
/// its hooks (a --fix took those out for a plugin) are gk's own
/// (`noted`: the record has a note of `settings`).
fn rules_there_before(
    site: &Site,
    settings: &Path,
    old: Option<&str>,
    noted: bool,
) -> Result<Vec<String>> {
    let Some(old) = old else {
        return Ok(Vec::new());
    };
    if noted {
        return Ok(Vec::new());
    }
    let Some(rules) = site.rules() else {
        return Ok(Vec::new());
    };
    if old.trim().is_empty() || settings_edit::remove_hooks(settings, old, site.ctx)? != old {
        return Ok(Vec::new());
    }
    let Ok(parsed) = crate::settings::parse(settings, old) else {
        return Ok(Vec::new());
    };
    let allow = parsed
        .value
        .pointer("/permissions/allow")
        .and_then(serde_json::Value::as_array)
        .cloned()
        .unwrap_or_default();
    Ok(rules
        .into_iter()
        .filter(|r| allow.iter().any(|a| a.as_str() == Some(r)))
        .collect())
}

/// The inverse of [`put_in`]: each part taken out as install put it in,
/// and only what is gk's.
fn take_out(desired: &Desired, request: &Request, plan: &mut Plan) -> Result<Planned> {
    let site = &desired.site;
    let parts = request.parts.within(desired.channel.parts());
    let mut planned = Planned::default();
    // The install record, read once for all this plan asks of it.
    let record_path = site.paths.install_record();
    let record = match desired.channel {
        Channel::User => Some(record::load(&record_path)?),
        Channel::Managed(_) => None,
    };
    match (&desired.channel, &record) {
        (Channel::User, Some(record)) if IN_SETTINGS.iter().any(|p| parts.has(*p)) => {
            let (change, note) = take_out_of_user_settings(desired, parts, record)?;
            plan.push(change);
            planned.notes.extend(note);
            plan.push(record.remove(&site.paths.settings()));
        }
        (Channel::Managed(dropin), _) if parts.has(Part::Registrations) => {
            plan.changes.extend(dropin.take_out()?);
        }
        _ => {}
    }
    if parts.has(Part::ClaudeMd) {
        let md = site.paths.claude_md();
        let found = read_text(&md)?;
        if found.is_none() {
            plan.push(FileChange::text(&md, None, None, "no CLAUDE.md"));
        }
        if let Some(old) = found {
            let new = claude_md::remove_section(&md, &old)?;
            // Only a CLAUDE.md that install created, with nothing else left
            // in it, goes; one that was there before (even empty, or a link
            // into a dotfiles folder) is only edited.
            let created = claude_md::created_by_install(&old) && !is_link(&md);
            let new = (!(created && new.is_empty())).then_some(new);
            plan.push(FileChange::text(&md, Some(old), new, "remove the gk block"));
        }
    }
    // A Claude folder sharing this hooks folder (through a link) where gk
    // is installed too, by the record: its hooks still run the program.
    let sharing = record
        .as_ref()
        .map_or_else(Vec::new, |r| r.others(&site.paths.settings()));
    if let (true, Some((bin, [_, why]))) = (parts.has(Part::Program), desired.channel.program(site))
    {
        if let Some(other) = sharing.first() {
            planned.notes.push(format!(
                "left {} in place: {} runs it too (gk is installed there, through the same hooks folder)",
                bin.display(),
                crate::text::one_line_ends(&other.to_string_lossy(), 160)
            ));
        } else {
            let (change, note) = binary::take_out(&bin, site.ctx.os, why)?;
            plan.changes.extend(change);
            planned.notes.extend(note);
            plan.changes.extend(binary::leftover_copies(&bin)?);
        }
    }
    if parts.has(Part::StateFile) && sharing.is_empty() {
        let state = site.paths.state_file();
        if let Some(bytes) = read_current(&state, crate::hooks::state::MAX_STATE_BYTES)? {
            plan.push(FileChange {
                path: state,
                old: Some(bytes),
                new: None,
                binary: false,
                create_mode: 0o644,
                strategy: ReplaceStrategy::InPlace,
                reason: "task state (--purge)".into(),
            });
        }
    }
    if let Channel::Managed(dropin) = &desired.channel {
        // Last: a folder goes only when the plan leaves it empty.
        dropin.folders_out(plan, &mut planned.notes);
    }
    Ok(planned)
}

/// The settings parts taken out of the user's settings: gk's hook
/// entries, the permission rules it added (the user's own copies stay)
/// and a status line that runs gk, the containers install filled kept as
/// the record says; a file install created with nothing else left in it
/// goes. `None` when there is no settings.json.
fn take_out_of_user_settings(
    desired: &Desired,
    parts: Parts,
    record: &record::Loaded<'_>,
) -> Result<(FileChange, Option<String>)> {
    let site = &desired.site;
    let settings = site.paths.settings();
    let Some(old) = read_text(&settings)? else {
        // Absent, and checked so when the plan is written: an install that
        // writes it meanwhile stops this run (see the drop-in's take_out).
        return Ok((
            FileChange::text(&settings, None, None, "no settings.json"),
            None,
        ));
    };
    let noted = record.noted(&settings);
    let keep = &noted.containers;
    let mut new = old.clone();
    if parts.has(Part::Registrations) {
        new = settings_edit::remove_hooks_keeping(&settings, &old, site.ctx, keep)?;
    }
    let hooks = new != old;
    let without_hooks = new.clone();
    // Neither gk's hooks nor a note of install here: gk is not installed
    // in this file (an uninstall ran already, or none ever did), so copies
    // of gk's rules in it are the user's.
    let mut note = None;
    if let (true, Some(all)) = (parts.has(Part::PermissionRules), &desired.rules) {
        // The user's own copies of gk's rules stay: those noted, or all
        // of them where gk is not installed.
        let installed = noted.there
            || match parts.has(Part::Registrations) {
                true => hooks,
                false => settings_edit::remove_hooks(&settings, &old, site.ctx)? != old,
            };
        if !installed && settings_keys::remove_rules_keeping(&settings, &new, all, keep)? != new {
            note = Some(format!(
                "left gk's permission rules in {}: it holds neither gk's hooks nor install's note, so they are taken for yours",
                settings.display()
            ));
        }
        let rules: Vec<String> = (all.iter())
            .filter(|r| installed && !noted.rules.contains(r))
            .cloned()
            .collect();
        new = on_disk_places(Some(&old), &new, |t| {
            settings_keys::remove_rules_keeping(&settings, t, &rules, keep)
        })?;
    }
    let rules = new != without_hooks;
    let mut line = false;
    if parts.has(Part::StatusLine) {
        let without_line = on_disk_places(Some(&old), &new, |t| {
            settings_keys::remove_statusline(&settings, t, site.ctx, keep)
        })?;
        line = without_line != new;
        new = without_line;
    }
    let taken = [hooks, rules, line];
    Ok((settings_removal(&settings, old, new, &noted, taken), note))
}

/// The change that leaves `new` in the user's settings: the blank text
/// the record kept when nothing else is left, no file when install
/// created it (never through a link: that is the user's).
fn settings_removal(
    settings: &Path,
    old: String,
    mut new: String,
    noted: &record::Noted,
    [hooks, rules, line]: [bool; 3],
) -> FileChange {
    let nothing_left =
        serde_json::from_str::<serde_json::Value>(&new).ok() == Some(serde_json::json!({}));
    // Nothing left but `{}` in a file that was blank before install.
    if let (Some(blank), true) = (&noted.blank, nothing_left) {
        new = blank.clone();
    }
    let gone = noted.created && nothing_left && !is_link(settings);
    FileChange::text(
        settings,
        Some(old),
        (!gone).then_some(new),
        &if gone {
            "install created it, and nothing else is in it".to_string()
        } else {
            uninstall_reason(hooks, rules, line)
        },
    )
}

/// What uninstall's edit of settings.json takes out, in the words of its
/// plan: only the parts there.
fn uninstall_reason(hooks: bool, rules: bool, line: bool) -> String {
    let parts: Vec<&str> = [
        (hooks, "hook entries"),
        (rules, "permission rules"),
        (line, "status line"),
    ]
    .into_iter()
    .filter_map(|(there, what)| there.then_some(what))
    .collect();
    match parts.as_slice() {
        [] => "gk's entries".into(),
        [one] => format!("remove gk's {one}"),
        [rest @ .., last] => format!("remove gk's {} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hookcmd::CommandContext;
    use crate::machine::Machine;
    use crate::paths::ClaudePaths;
    use crate::platform::Os;

    /// Write `plan` as the engine would, without its checks.
    fn write(plan: &Plan) {
        for c in &plan.changes {
            match &c.new {
                Some(bytes) => {
                    std::fs::create_dir_all(c.path.parent().unwrap()).unwrap();
                    std::fs::write(&c.path, bytes).unwrap();
                }
                None => std::fs::remove_file(&c.path).unwrap(),
            }
        }
    }

    fn request(direction: Direction, by: By, program: Option<Program<'_>>) -> Request<'_> {
        Request {
            direction,
            by,
            parts: Parts::ALL,
            take_out: TakeOut::default(),
            program,
        }
    }

    /// This machine, its home at `dir`, its state folder in it.
    fn home_machine(dir: &Path) -> Machine {
        let ctx = CommandContext::with_home(Os::current(), dir.to_str().unwrap());
        let paths = ClaudePaths::at(ctx.claude_dir.clone());
        Machine {
            state_dir: Some(dir.join("state")),
            ..Machine::of(ctx, paths)
        }
    }

    #[test]
    fn every_part_taken_out_gives_back_what_putting_it_in_found() {
        let dir = tempfile::tempdir().unwrap();
        let m = home_machine(dir.path());
        // An empty container gk fills is noted, and given back empty.
        let settings = "{\n  \"env\": {\"A\": \"1\"},\n  \"permissions\": { },\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"other-tool\"}]}]}\n}\n";
        let md = "# Mine\n\nKeep this.\n";
        std::fs::create_dir_all(m.paths.dir()).unwrap();
        std::fs::write(m.paths.settings(), settings).unwrap();
        std::fs::write(m.paths.claude_md(), md).unwrap();
        let desired = Desired {
            site: Site::of(&m),
            shell: ShellForm::Bash,
            rules: Site::of(&m).rules(),
            channel: Channel::User,
        };
        // The test program carries gk's version marker, as a gk build does.
        let own = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let program = Program {
            bytes: &|| Ok(own.clone()),
            replace: &|_| true,
        };
        let mut plan = Plan::new("in");
        let put = request(Direction::Add, By::Install, Some(program));
        let planned = super::plan(&desired, &put, &mut plan).unwrap();
        assert!(planned.done.hooks && planned.done.rules && planned.done.statusline);
        write(&plan);
        let now = std::fs::read_to_string(m.paths.settings()).unwrap();
        assert!(
            now.contains("hook prompt") && now.contains("other-tool"),
            "{now}"
        );
        assert!(m.paths.binary(m.os()).exists() && m.paths.state_file().exists());
        assert!(m.paths.install_record().exists());

        let mut plan = Plan::new("out");
        let out = request(Direction::Remove, By::Uninstall, None);
        let planned = super::plan(&desired, &out, &mut plan).unwrap();
        assert_eq!(planned.notes, Vec::<String>::new());
        write(&plan);
        assert_eq!(
            std::fs::read_to_string(m.paths.settings()).unwrap(),
            settings
        );
        assert_eq!(std::fs::read_to_string(m.paths.claude_md()).unwrap(), md);
        for gone in [
            m.paths.binary(m.os()),
            m.paths.state_file(),
            m.paths.install_record(),
        ] {
            assert!(!gone.exists(), "{}", gone.display());
        }
        // Taken out again: nothing of gk's is left to take.
        let mut plan = Plan::new("again");
        super::plan(&desired, &out, &mut plan).unwrap();
        assert!(plan.changes.iter().all(|c| !c.changes_something()));
    }

    fn managed_machine(dir: &Path) -> Machine {
        let paths = ClaudePaths::at(dir.join("home/.claude"));
        let mut env = crate::env::Env::new(dir, dir.join("gk"));
        env.set("GK_MANAGED_SETTINGS", dir.join("etc/managed-settings.json"))
            .set("GK_MANAGED_PROGRAM", dir.join("bin/gk"));
        Machine::with_paths(Some(dir.join("home")), &paths, &env)
    }

    fn dropin(m: &Machine) -> DropIn<'_> {
        DropIn {
            m,
            target: crate::setup::managed::Target::here(m),
            output: None,
        }
    }

    #[test]
    fn the_managed_channel_plans_only_the_parts_a_dropin_carries() {
        let dir = tempfile::tempdir().unwrap();
        let m = managed_machine(dir.path());
        // Every part asked for: the channel keeps the program, the drop-in
        // and the record of the folders gk makes; nothing per user.
        let mut plan = Plan::new("in");
        let own = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let program = Program {
            bytes: &|| Ok(own.clone()),
            replace: &|_| true,
        };
        let put = request(Direction::Add, By::Install, Some(program));
        super::plan(&Desired::managed(dropin(&m)), &put, &mut plan).unwrap();
        let dropins = crate::registry::scopes::dropin_dir(&m.managed);
        let paths: Vec<PathBuf> = plan.changes.iter().map(|c| c.path.clone()).collect();
        assert_eq!(
            paths,
            [
                m.managed_program.clone(),
                dropins.join("gk.json"),
                dropins.join(".gk-install.json"),
            ]
        );
        // With --output: the drop-in alone.
        let file = dir.path().join("ship/gk.json");
        let alone = DropIn {
            output: Some(&file),
            ..dropin(&m)
        };
        let mut plan = Plan::new("out");
        super::plan(&Desired::managed(alone.clone()), &put, &mut plan).unwrap();
        let paths: Vec<&Path> = plan.changes.iter().map(|c| c.path.as_path()).collect();
        assert_eq!(paths, [file.as_path()]);
        assert_eq!(
            Desired::managed(alone).channel.parts(),
            Parts::default().with(Part::Registrations)
        );
    }

    #[test]
    fn an_uninstall_planned_without_a_dropin_stops_when_one_appears() {
        // Planned while another run was between its writes: the program in
        // place, the drop-in not yet. That run then writes the drop-in;
        // taking the program out now would leave a drop-in whose hooks run
        // a program that is gone (a state no order of the two runs gives).
        let dir = tempfile::tempdir().unwrap();
        let m = managed_machine(dir.path());
        let own = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        std::fs::create_dir_all(m.managed_program.parent().unwrap()).unwrap();
        std::fs::write(&m.managed_program, &own).unwrap();
        let desired = Desired::managed(dropin(&m));
        let mut plan = Plan::new("out");
        let out = request(Direction::Remove, By::Uninstall, None);
        super::plan(&desired, &out, &mut plan).unwrap();
        let at = crate::setup::managed::dropin_path(&m.managed);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(&at, "{}").unwrap();
        let err = crate::change::apply::write_plan(&plan, "t", None, &|_| {}).unwrap_err();
        assert!(err.to_string().contains("changed since the plan"), "{err}");
        assert_eq!(std::fs::read(&m.managed_program).unwrap(), own);
    }

    #[test]
    fn a_user_uninstall_planned_without_settings_stops_when_they_appear() {
        let dir = tempfile::tempdir().unwrap();
        let m = managed_machine(dir.path());
        let bin = m.paths.binary(m.os());
        let own = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
        std::fs::write(&bin, &own).unwrap();
        let desired = Desired {
            site: Site::of(&m),
            shell: ShellForm::Bash,
            rules: None,
            channel: Channel::User,
        };
        let mut plan = Plan::new("out");
        let out = request(Direction::Remove, By::Uninstall, None);
        super::plan(&desired, &out, &mut plan).unwrap();
        std::fs::write(m.paths.settings(), "{}").unwrap();
        let err = crate::change::apply::write_plan(&plan, "t", None, &|_| {}).unwrap_err();
        assert!(err.to_string().contains("changed since the plan"), "{err}");
        assert_eq!(std::fs::read(&bin).unwrap(), own);
    }

    #[test]
    fn a_dropin_an_administrator_edited_is_given_back_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let m = managed_machine(dir.path());
        let at = crate::setup::managed::dropin_path(&m.managed);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        let admin = "{\n  \"allowManagedHooksOnly\": true\n}\n";
        std::fs::write(&at, admin).unwrap();
        let desired = Desired::managed(dropin(&m));
        let program = Program {
            bytes: &|| Ok(b"gk".to_vec()),
            replace: &|_| true,
        };
        let mut plan = Plan::new("in");
        let put = request(Direction::Add, By::Install, Some(program));
        super::plan(&desired, &put, &mut plan).unwrap();
        let added = plan.changes.iter().find(|c| c.path == at).unwrap();
        let text = String::from_utf8(added.new.clone().unwrap()).unwrap();
        assert!(text.contains("allowManagedHooksOnly"), "{text}");
        assert!(text.contains("\"args\""), "{text}");
        std::fs::write(&at, &text).unwrap();
        let mut plan = Plan::new("out");
        let out = request(Direction::Remove, By::Uninstall, None);
        let planned = super::plan(&desired, &out, &mut plan).unwrap();
        let back = plan.changes.iter().find(|c| c.path == at).unwrap();
        assert_eq!(back.new.as_deref(), Some(admin.as_bytes()));
        // The program there is not a gk build: it stays, and a note says so.
        std::fs::create_dir_all(m.managed_program.parent().unwrap()).unwrap();
        std::fs::write(&m.managed_program, "an admin's tool").unwrap();
        let mut plan = Plan::new("out");
        let planned_again = super::plan(&desired, &out, &mut plan).unwrap();
        assert!(plan.changes.iter().all(|c| c.path != m.managed_program));
        assert_eq!(planned.notes, Vec::<String>::new());
        assert_eq!(planned_again.notes.len(), 1, "{:?}", planned_again.notes);
    }

    #[test]
    fn a_first_install_stopped_after_its_note_still_leaves_the_users_rules() {
        // The note of what settings.json held is written before
        // settings.json: a run killed between the two has noted the user's
        // own copies of gk's rules, and the install run again (which then
        // finds a note) does not take them for gk's.
        let dir = tempfile::tempdir().unwrap();
        let m = home_machine(dir.path());
        let desired = Desired {
            site: Site::of(&m),
            shell: ShellForm::Bash,
            rules: Site::of(&m).rules(),
            channel: Channel::User,
        };
        let rules = desired.rules.clone().unwrap();
        let settings = format!(
            "{{\n  \"permissions\": {{\n    \"allow\": {}\n  }}\n}}\n",
            serde_json::to_string(&rules).unwrap()
        );
        std::fs::create_dir_all(m.paths.dir()).unwrap();
        std::fs::write(m.paths.settings(), &settings).unwrap();
        let mut put = request(Direction::Add, By::Install, None);
        put.parts = Parts::default()
            .with(Part::Registrations)
            .with(Part::PermissionRules);
        let mut plan = Plan::new("in");
        super::plan(&desired, &put, &mut plan).unwrap();
        let at = |p: &Path| plan.changes.iter().position(|c| c.path == p).unwrap();
        let (note, user) = (at(&m.paths.install_record()), at(&m.paths.settings()));
        assert!(note < user, "the note is written after settings.json");
        // Killed after the note: only the changes before settings.json.
        let mut killed = Plan::new("killed");
        killed.changes = plan.changes[..user].to_vec();
        write(&killed);
        assert_eq!(
            std::fs::read_to_string(m.paths.settings()).unwrap(),
            settings
        );
        let mut plan = Plan::new("again");
        super::plan(&desired, &put, &mut plan).unwrap();
        write(&plan);
        let mut plan = Plan::new("out");
        let mut out = request(Direction::Remove, By::Uninstall, None);
        out.parts = put.parts;
        super::plan(&desired, &out, &mut plan).unwrap();
        write(&plan);
        assert_eq!(
            std::fs::read_to_string(m.paths.settings()).unwrap(),
            settings
        );
    }
}
