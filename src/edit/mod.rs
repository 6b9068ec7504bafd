//! The pure text editors of the files gk touches: text in, text out, every
//! byte gk does not own kept. settings.json is spliced at byte ranges from
//! its syntax tree ([`settings_edit`], [`settings_keys`], [`switch`]);
//! CLAUDE.md gets or loses gk's marked section ([`claude_md`]). Nothing
//! here reads or writes a file.

pub mod claude_md;
pub mod settings_edit;
pub mod settings_keys;
pub mod splice;
pub mod switch;
