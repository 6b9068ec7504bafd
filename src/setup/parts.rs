//! The parts of what gk puts on a machine, each planned by one function
//! that install and `gk doctor --fix` both call: install plans every part,
//! `--fix` the parts its findings name ([`Part`], the remedy a finding
//! carries). Each function reads the file it changes and returns the
//! change; nothing here writes.

use std::path::Path;

use super::{
    put_in_settings, statusline_for, verified_wanted_hooks, Done, SettingsWanted, CLEAN_STATE,
};
use crate::change::fs::{read_current, read_text};
use crate::change::plan::FileChange;
use crate::edit::claude_md;
use crate::edit::settings_edit::{EmptyContainer, WantedHooks};
use crate::edit::settings_keys::StatusLine;
use crate::error::Result;
use crate::hookcmd::{CommandContext, ShellForm};
use crate::machine::Machine;
use crate::paths::ClaudePaths;
use crate::platform::Os;

/// One part of what gk puts on a machine: what a doctor finding's fix
/// names, and what a plan is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Part {
    /// gk's registrations in user settings: one canonical entry per hook,
    /// every other gk spelling and the Python hooks taken out.
    Registrations,
    /// The running gk in place of the registered program, at the path the
    /// channel's hooks run ([`super::binary::put_in`], `take_out`).
    Program,
    /// The Task State Convention block in CLAUDE.md.
    ClaudeMd,
    /// The clean task_state.json, created only when there is none.
    StateFile,
    /// The permission rules for the task records, in user settings.
    PermissionRules,
    /// gk's status line in user settings, spelt for the shell that runs it.
    StatusLine,
}

/// A set of [`Part`]s.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Parts(u8);

impl Parts {
    /// Every part: what install puts on a machine, and uninstall takes off.
    pub const ALL: Parts = Parts((1 << (Part::StatusLine as u8 + 1)) - 1);

    fn bit(part: Part) -> u8 {
        1 << part as u8
    }

    pub fn insert(&mut self, part: Part) {
        self.0 |= Self::bit(part);
    }

    pub fn remove(&mut self, part: Part) {
        self.0 &= !Self::bit(part);
    }

    pub fn has(self, part: Part) -> bool {
        self.0 & Self::bit(part) != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// `self` with `part` too.
    pub fn with(mut self, part: Part) -> Parts {
        self.insert(part);
        self
    }

    /// The parts of `self` that are also in `other`.
    pub fn within(self, other: Parts) -> Parts {
        Parts(self.0 & other.0)
    }
}

/// The facts of a machine the parts are spelt from: install reads them
/// from the [`Machine`], doctor from what it diagnosed (the same facts).
#[derive(Debug, Clone, Copy)]
pub struct Site<'a> {
    pub paths: &'a ClaudePaths,
    pub ctx: &'a CommandContext,
    pub git_bash: Option<&'a Path>,
    /// Windows: the `HOME` Git Bash will see ([`super::spelling_context`]).
    pub bash_home: Option<&'a Path>,
    /// The task records' folder (`None` when no home folder is known).
    pub state_dir: Option<&'a Path>,
    /// The client's version as install asked it: which hook events it
    /// knows ([`crate::hookcmd::HookKind::known_to`]). `None`: not asked
    /// or no client found; doctor does not ask, and leaves the switch
    /// hooks' entries as they are.
    pub client: Option<crate::hookcmd::ClientVersion>,
    /// gk's hooks a plugin registers here (the switch guard's plugin
    /// beside an install): gk's settings entries for them are taken out
    /// and none is added, so each runs once.
    pub by_plugin: &'a [crate::hookcmd::HookKind],
}

impl<'a> Site<'a> {
    pub fn of(m: &'a Machine) -> Site<'a> {
        Site {
            paths: &m.paths,
            ctx: &m.ctx,
            git_bash: m.git_bash.as_deref(),
            bash_home: m.bash_home.as_deref(),
            state_dir: m.state_dir.as_deref(),
            client: None,
            by_plugin: &[],
        }
    }

    fn os(&self) -> Os {
        self.ctx.os
    }

    /// [`Part::StateFile`]: task_state.json as it is, or in the clean form
    /// when there is none.
    pub fn state_file(&self, reason: &str) -> Result<FileChange> {
        let state = self.paths.state_file();
        let old = read_current(&state, crate::hooks::state::MAX_STATE_BYTES)?;
        let mut change = FileChange::text(&state, None, None, reason);
        change.new = Some(old.clone().unwrap_or_else(|| CLEAN_STATE.into()));
        change.old = old;
        Ok(change)
    }

    /// [`Part::ClaudeMd`]: CLAUDE.md with this gk's block, the user's own
    /// text kept. `one_block`: later marked copies are taken out first.
    pub fn claude_md(&self, one_block: bool, reason: &str) -> Result<FileChange> {
        let md = self.paths.claude_md();
        let old = read_text(&md)?;
        let section =
            crate::hooks::convention::section_for(&self.paths.state_file().display().to_string());
        let new = match &old {
            Some(text) if one_block => {
                let one = claude_md::remove_extra_blocks(&md, text)?;
                claude_md::insert_section(&md, &one, &section)?
            }
            Some(text) => claude_md::insert_section(&md, text, &section)?,
            None => claude_md::new_file(&section),
        };
        Ok(FileChange::text(&md, old, Some(new), reason))
    }

    /// [`Part::PermissionRules`]: the `permissions.allow` rules that let
    /// Claude write its task records; `None` when no rule can name the
    /// folder ([`crate::paths::state_rules`]) or there is none.
    pub fn rules(&self) -> Option<[String; 2]> {
        self.state_dir
            .and_then(|d| crate::paths::state_rules(self.os(), d, Some(&self.ctx.home)))
    }

    /// The parts that live in user settings ([`Part::Registrations`],
    /// [`Part::PermissionRules`] with `rules`, [`Part::StatusLine`]) put
    /// into `text`, the file's text after any earlier step (`old`: as it
    /// is on disk), by the one chain of settings edits
    /// ([`put_in_settings`]); the other parts are not settings.
    pub fn user_settings(
        &self,
        parts: Parts,
        shell: ShellForm,
        rules: Option<&[String; 2]>,
        old: Option<&str>,
        text: String,
    ) -> Result<(String, Vec<EmptyContainer>, Option<StatusLine>, Done)> {
        let hooks = match parts.has(Part::Registrations) {
            true => Some(self.hooks(shell)?),
            false => None,
        };
        let line = match parts.has(Part::StatusLine) {
            true => Some(self.statusline(shell)?),
            false => None,
        };
        let want = SettingsWanted {
            hooks: hooks.as_ref(),
            rules: rules
                .filter(|_| parts.has(Part::PermissionRules))
                .map(|r| r.as_slice()),
            statusline: line.as_deref(),
        };
        put_in_settings(&self.paths.settings(), old, text, &want, self.ctx)
    }

    /// gk's hooks, spelt for `shell` on this machine and read back
    /// ([`Part::Registrations`]).
    pub fn hooks(&self, shell: ShellForm) -> Result<WantedHooks> {
        let bin = self.paths.binary(self.os());
        Ok(
            verified_wanted_hooks(self.ctx, shell, self.bash_home, &bin, self.client)?
                .removing(self.by_plugin),
        )
    }

    /// gk's status line for hooks spelt for `shell` ([`Part::StatusLine`]).
    pub fn statusline(&self, shell: ShellForm) -> Result<String> {
        let bin = self.paths.binary(self.os());
        statusline_for(self.ctx, shell, self.git_bash, self.bash_home, &bin)
    }
}
