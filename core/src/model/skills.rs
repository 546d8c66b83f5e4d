//! The wire types of the skills extension (`io.modelcontextprotocol/skills`, SEP-2640): its
//! identifier, its methods, and the entries `skills/list` and `skills/get` return. The client's
//! verified reads are in [`client::skills`](crate::client::skills); the server's side is in
//! `server/skills.rs`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::JsonObject;

/// The identifier of the skills extension, the key under `capabilities.extensions`.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The method that lists a server's skills.
pub const SKILLS_LIST: &str = "skills/list";

/// The method that returns the entry of one skill, named by the URI of its `SKILL.md`.
pub const SKILLS_GET: &str = "skills/get";

/// The method that lists the direct children of a directory of skill files (the extension's
/// optional `directoryRead`).
pub const RESOURCES_DIRECTORY_READ: &str = "resources/directory/read";

/// The MIME type of a directory among the children `resources/directory/read` lists.
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// One file of a skill, as its entry lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SkillFile {
    /// The file's resource URI.
    pub uri: String,
    /// The SHA-256 digest of the file's bytes, as `sha256:<hex>`.
    pub digest: String,
    /// The file's length in bytes.
    pub size: u64,
    /// Every other member, kept as it came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl SkillFile {
    /// Creates the listing of a file from its URI, its `sha256:` digest and its length in bytes.
    pub fn new(uri: impl Into<String>, digest: impl Into<String>, size: u64) -> Self {
        Self { uri: uri.into(), digest: digest.into(), size, extra: JsonObject::new() }
    }
}

/// A skill as `skills/list` describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SkillEntry {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
    /// The frontmatter of the skill's `SKILL.md`, which must match the file's exactly.
    pub frontmatter: JsonObject,
    /// Every file of the skill, `SKILL.md` included.
    #[serde(default)]
    pub resources: Vec<SkillFile>,
    /// Every other member, kept as it came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl SkillEntry {
    /// Creates the entry of the skill whose `SKILL.md` is at `uri`, with its frontmatter and no
    /// files listed.
    pub fn new(uri: impl Into<String>, frontmatter: JsonObject) -> Self {
        Self { uri: uri.into(), frontmatter, resources: Vec::new(), extra: JsonObject::new() }
    }
}

/// The digest of a skill file's `bytes` as entries write it: `sha256:` and the SHA-256 in hex.
pub fn sha256_digest(bytes: &[u8]) -> String {
    let hex: String = Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// Splits a `SKILL.md` into its YAML frontmatter (parsed) and its body, or says why it cannot.
pub fn parse_skill_md(text: &str) -> Result<(JsonObject, String), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let missing = || "the SKILL.md has no YAML frontmatter".to_owned();
    let rest = text.strip_prefix("---\r\n").or_else(|| text.strip_prefix("---\n")).ok_or_else(missing)?;
    let mut offset = 0;
    let (yaml, body) = loop {
        let line_end = rest[offset..].find('\n').map_or(rest.len(), |i| offset + i + 1);
        let line = &rest[offset..line_end];
        if line.trim_end_matches(['\r', '\n']).trim_end_matches([' ', '\t']) == "---" {
            break (&rest[..offset], &rest[line_end..]);
        }
        if line_end >= rest.len() {
            return Err(missing());
        }
        offset = line_end;
    };
    let value: Value =
        serde_yaml_ng::from_str(yaml).map_err(|e| format!("the SKILL.md frontmatter is not valid YAML: {e}"))?;
    match value {
        Value::Object(map) => Ok((map, body.to_owned())),
        _ => Err("the SKILL.md frontmatter is not a mapping".to_owned()),
    }
}
