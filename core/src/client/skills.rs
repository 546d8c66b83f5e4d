//! The skills extension (`io.modelcontextprotocol/skills`, SEP-2640) on the client side.
//!
//! A server that declares the extension lists its skills with `skills/list`: each entry names
//! the skill's `SKILL.md` (`uri`), repeats its YAML frontmatter, and lists every file of the
//! skill with its SHA-256 `digest` and its `size`. The client retrieves nothing ahead of need:
//! [`Client::list_skills`] reads the entries only, [`Client::load_skill`] fetches a skill's
//! `SKILL.md` when the skill is used, and [`Client::read_skill_file`] fetches a supporting file
//! when the skill needs it. Every file read is verified against its entry (size, then digest),
//! and a `SKILL.md` whose frontmatter differs from the entry's in any field is refused: content
//! that fails verification is never returned.
//!
//! ```rust,no_run
//! # async fn run(client: &mcpweft::Client) -> Result<(), mcpweft::Error> {
//! let skills = client.list_skills().await?;
//! if let Some(entry) = skills.first() {
//!     let skill = client.load_skill(entry).await?;
//!     println!("{}: {}", skill.name().unwrap_or("?"), skill.body);
//! }
//! # Ok(()) }
//! ```

use std::collections::HashSet;

use base64::Engine;
use serde_json::{Value, json};

pub use crate::model::skills::{SkillEntry, SkillFile};
use crate::{
    Client, Error, RequestOptions,
    model::{
        JsonObject, ResourceContents,
        skills::{SKILLS_EXTENSION, SKILLS_LIST, parse_skill_md, sha256_digest},
    },
};

/// How many pages of `skills/list` one listing follows at most.
const MAX_PAGES: usize = 100;

/// A skill whose `SKILL.md` was fetched and verified.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LoadedSkill {
    /// The entry the skill was verified against.
    pub entry: SkillEntry,
    /// The frontmatter of the `SKILL.md`, the same as the entry's.
    pub frontmatter: JsonObject,
    /// The text of the `SKILL.md` after its frontmatter.
    pub body: String,
}

impl LoadedSkill {
    /// Returns the skill's name, from its frontmatter.
    pub fn name(&self) -> Option<&str> {
        self.frontmatter.get("name").and_then(Value::as_str)
    }
}

/// Checks the bytes read for `file` against its entry: the length first, then the digest.
pub fn verify_file(file: &SkillFile, bytes: &[u8]) -> Result<(), Error> {
    if bytes.len() as u64 != file.size {
        return Err(Error::Protocol(format!(
            "skill file {} has {} bytes where its entry says {}: refused",
            file.uri,
            bytes.len(),
            file.size
        )));
    }
    let Some(expected) = file.digest.strip_prefix("sha256:") else {
        return Err(Error::Protocol(format!("skill file {} has a digest of unknown form: {}", file.uri, file.digest)));
    };
    let actual = sha256_digest(bytes);
    if !actual["sha256:".len()..].eq_ignore_ascii_case(expected) {
        return Err(Error::Protocol(format!("skill file {} does not match its digest: refused", file.uri)));
    }
    Ok(())
}

/// Returns the first field where two frontmatters differ, if any.
fn first_difference(entry: &JsonObject, file: &JsonObject) -> Option<String> {
    let keys: Vec<&String> = entry.keys().chain(file.keys().filter(|k| !entry.contains_key(*k))).collect();
    keys.into_iter().find(|key| entry.get(*key) != file.get(*key)).cloned()
}

/// Returns the bytes of the first contents of a `resources/read` result.
fn contents_bytes(uri: &str, contents: &[ResourceContents]) -> Result<Vec<u8>, Error> {
    match contents.first() {
        Some(ResourceContents::Text(text)) => Ok(text.text.as_bytes().to_vec()),
        Some(ResourceContents::Blob(blob)) => base64::engine::general_purpose::STANDARD
            .decode(&blob.blob)
            .map_err(|e| Error::Protocol(format!("the contents of {uri} are not valid base64: {e}"))),
        None => Err(Error::Protocol(format!("reading {uri} returned no contents"))),
    }
}

impl Client {
    /// Returns whether the server declared the skills extension.
    pub fn supports_skills(&self) -> bool {
        self.server().capabilities.extensions.as_ref().is_some_and(|e| e.contains_key(SKILLS_EXTENSION))
    }

    /// Lists the server's skills, following the pages (at most 100, stopping at a cursor seen
    /// before). Retrieves no skill file.
    pub async fn list_skills(&self) -> Result<Vec<SkillEntry>, Error> {
        if !self.supports_skills() {
            return Err(Error::CapabilityMissing(SKILLS_EXTENSION.to_owned()));
        }
        let mut entries = Vec::new();
        let mut seen = HashSet::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = match &cursor {
                Some(cursor) => json!({ "cursor": cursor }),
                None => json!({}),
            };
            let page = self.request(SKILLS_LIST, Some(params), RequestOptions::default()).await?;
            let skills = page.get("skills").cloned().unwrap_or(Value::Array(Vec::new()));
            let skills: Vec<SkillEntry> = serde_json::from_value(skills)
                .map_err(|e| Error::Protocol(format!("invalid skills/list result: {e}")))?;
            entries.extend(skills);
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) if !next.is_empty() && seen.insert(next.to_owned()) => cursor = Some(next.to_owned()),
                _ => return Ok(entries),
            }
        }
        Ok(entries)
    }

    /// Reads one file of a skill, which its entry must list, and returns its bytes once they
    /// match the entry's size and digest.
    pub async fn read_skill_file(&self, entry: &SkillEntry, uri: &str) -> Result<Vec<u8>, Error> {
        let file = entry.resources.iter().find(|f| f.uri == uri).ok_or_else(|| {
            Error::Protocol(format!("{uri} is not a file of the skill {}, whose entry lists no such file", entry.uri))
        })?;
        let result = self.read_resource(uri).await?;
        let bytes = contents_bytes(uri, &result.contents)?;
        verify_file(file, &bytes)?;
        Ok(bytes)
    }

    /// Loads a skill: fetches its `SKILL.md`, verifies it against the entry (size, digest, and
    /// every field of its frontmatter) and returns it. Supporting files are read later, when
    /// needed, with [`Client::read_skill_file`].
    pub async fn load_skill(&self, entry: &SkillEntry) -> Result<LoadedSkill, Error> {
        let bytes = self.read_skill_file(entry, &entry.uri).await?;
        let text = String::from_utf8(bytes)
            .map_err(|_| Error::Protocol(format!("the SKILL.md at {} is not UTF-8", entry.uri)))?;
        let (frontmatter, body) = parse_skill_md(&text).map_err(Error::Protocol)?;
        if let Some(field) = first_difference(&entry.frontmatter, &frontmatter) {
            return Err(Error::Protocol(format!(
                "the frontmatter of {} differs from its entry in `{field}`: the skill is not loaded",
                entry.uri
            )));
        }
        Ok(LoadedSkill { entry: entry.clone(), frontmatter, body })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SKILL: &str = "---\nname: pdf-processing\ndescription: Extract PDF text\n---\n\nSkill body.\n";

    fn file(uri: &str, bytes: &[u8]) -> SkillFile {
        SkillFile {
            uri: uri.to_owned(),
            digest: sha256_digest(bytes),
            size: bytes.len() as u64,
            extra: JsonObject::new(),
        }
    }

    #[test]
    fn files_are_checked_for_size_and_digest() {
        let entry = file("skill://pdf/SKILL.md", SKILL.as_bytes());
        assert!(verify_file(&entry, SKILL.as_bytes()).is_ok());
        let longer = format!("{SKILL}more");
        assert!(verify_file(&entry, longer.as_bytes()).unwrap_err().to_string().contains("bytes"));
        let tampered = SKILL.replace("Skill body.", "Evil body!!");
        assert_eq!(tampered.len(), SKILL.len());
        assert!(verify_file(&entry, tampered.as_bytes()).unwrap_err().to_string().contains("digest"));
        let unknown = SkillFile { digest: "md5:00".to_owned(), ..entry };
        assert!(verify_file(&unknown, SKILL.as_bytes()).is_err());
    }

    #[test]
    fn the_frontmatter_is_parsed_and_compared_field_by_field() {
        let (frontmatter, body) = parse_skill_md(SKILL).unwrap();
        assert_eq!(frontmatter["name"], "pdf-processing");
        assert_eq!(body, "\nSkill body.\n");
        let entry: JsonObject =
            serde_json::from_value(json!({ "name": "pdf-processing", "description": "Extract PDF text" })).unwrap();
        assert_eq!(first_difference(&entry, &frontmatter), None);
        let (changed, _) = parse_skill_md(&SKILL.replace("Extract PDF text", "Exfiltrate credentials")).unwrap();
        assert_eq!(first_difference(&entry, &changed).as_deref(), Some("description"));
        let (extra, _) = parse_skill_md(&SKILL.replace("---\n\n", "license: MIT\n---\n\n")).unwrap();
        assert_eq!(first_difference(&entry, &extra).as_deref(), Some("license"));
        let crlf = SKILL.replace('\n', "\r\n");
        assert_eq!(parse_skill_md(&format!("\u{feff}{crlf}")).unwrap().0, frontmatter);
    }

    #[test]
    fn a_skill_md_without_frontmatter_is_refused() {
        assert!(parse_skill_md("# Just a title\n").is_err());
        assert!(parse_skill_md("---\nname: x\nno end\n").is_err());
        assert!(parse_skill_md("---\n- a list\n---\n").is_err());
    }
}
