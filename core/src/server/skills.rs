//! The skills extension (`io.modelcontextprotocol/skills`, SEP-2640) on the server side.
//!
//! A [`Skill`] is a `SKILL.md` with YAML frontmatter (`name`, `description`) and supporting
//! files. [`Server::add_skill`] serves each file as a resource under `skill://<name>/` and lists
//! the skill in `skills/list` and `skills/get` with every file's SHA-256 digest and size, and
//! the server declares the extension to 2026-07-28 clients.

use serde_json::Value;

use super::{Duplicate, RequestContext, ResourceRequest, Server, ServerBuilder, already_registered};
use crate::{
    Error,
    model::{
        JsonObject, ReadResourceResult, Resource, ResourceContents,
        skills::{SkillEntry, SkillFile, parse_skill_md, sha256_digest},
    },
    sync::lock,
};

/// How many files one skill may have.
pub const MAX_SKILL_FILES: usize = 512;

/// How many bytes the files of one skill may hold together.
pub const MAX_SKILL_BYTES: usize = 16 * 1024 * 1024;

/// A skill to serve: its `SKILL.md` and supporting files, by path within the skill.
#[derive(Debug, Clone)]
pub struct Skill {
    name: String,
    frontmatter: JsonObject,
    files: Vec<(String, String)>,
}

/// Whether `name` follows the skill naming rules: 1 to 64 lowercase letters, digits and
/// hyphens, neither starting nor ending with a hyphen, with no two hyphens in a row.
fn is_valid_skill_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

impl Skill {
    /// Creates a skill from its `SKILL.md`, whose frontmatter must give a valid `name` and a
    /// non-empty `description`.
    pub fn new(skill_md: impl Into<String>) -> Result<Skill, Error> {
        let text = skill_md.into();
        let (frontmatter, _) = parse_skill_md(&text).map_err(Error::Config)?;
        let name = frontmatter.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
        if !is_valid_skill_name(&name) {
            return Err(Error::Config(format!(
                "the skill name {name:?} must be 1 to 64 lowercase letters, digits and single hyphens"
            )));
        }
        if frontmatter.get("description").and_then(Value::as_str).is_none_or(str::is_empty) {
            return Err(Error::Config(format!("the skill {name} needs a description in its frontmatter")));
        }
        Ok(Skill { name, frontmatter, files: vec![("SKILL.md".to_owned(), text)] })
    }

    /// Adds a supporting file at `path` within the skill (such as `references/FORMS.md`).
    pub fn with_file(mut self, path: impl Into<String>, text: impl Into<String>) -> Result<Skill, Error> {
        let path = path.into();
        let bad_segment = path.split('/').any(|s| s.is_empty() || s == "." || s == "..");
        if bad_segment || self.files.iter().any(|(p, _)| *p == path) {
            return Err(Error::Config(format!("{path:?} is not a new relative path within the skill {}", self.name)));
        }
        if self.files.len() >= MAX_SKILL_FILES {
            return Err(Error::Config(format!("a skill has at most {MAX_SKILL_FILES} files")));
        }
        let text = text.into();
        if self.files.iter().map(|(_, t)| t.len()).sum::<usize>() + text.len() > MAX_SKILL_BYTES {
            return Err(Error::Config(format!("the files of a skill hold at most {MAX_SKILL_BYTES} bytes")));
        }
        self.files.push((path, text));
        Ok(self)
    }

    /// Returns the skill's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn uri(&self, path: &str) -> String {
        format!("skill://{}/{path}", self.name)
    }

    /// The entry `skills/list` and `skills/get` give for the skill.
    fn entry(&self) -> SkillEntry {
        let resources = self
            .files
            .iter()
            .map(|(path, text)| SkillFile {
                uri: self.uri(path),
                digest: sha256_digest(text.as_bytes()),
                size: text.len() as u64,
                extra: JsonObject::new(),
            })
            .collect();
        SkillEntry {
            uri: self.uri("SKILL.md"),
            frontmatter: self.frontmatter.clone(),
            resources,
            extra: JsonObject::new(),
        }
    }
}

impl Server {
    /// Serves a skill: each of its files as a resource, and its entry in `skills/list` and
    /// `skills/get`.
    ///
    /// Fails with [`Error::Config`] when a skill of the same name is served already (use
    /// [`replace_skill`](Self::replace_skill) to replace it) or when a resource is registered at
    /// the URI of one of its files.
    pub fn add_skill(&self, skill: Skill) -> Result<(), Error> {
        self.register_skill(skill, Duplicate::Refuse)
    }

    /// Serves a skill, or replaces the one of the same name: the files of the old skill that
    /// the new one does not have are no longer served.
    pub fn replace_skill(&self, skill: Skill) {
        // Replacing never meets a duplicate, the one failure of a skill's registration.
        let _ = self.register_skill(skill, Duplicate::Replace);
    }

    fn register_skill(&self, skill: Skill, duplicate: Duplicate) -> Result<(), Error> {
        let entry = skill.entry();
        // The skills' lock is held throughout, so that two registrations of one skill cannot
        // interleave their files.
        let mut skills = lock(&self.inner.skills);
        let old = skills.get(&entry.uri);
        if duplicate == Duplicate::Refuse {
            if old.is_some() {
                return Err(already_registered("skill", &skill.name));
            }
            let resources = lock(&self.inner.resources);
            if let Some(taken) = skill.files.iter().map(|(path, _)| skill.uri(path)).find(|u| resources.contains(u)) {
                return Err(already_registered("resource", &taken));
            }
        }
        for stale in old.iter().flat_map(|old| &old.resources) {
            if !skill.files.iter().any(|(path, _)| skill.uri(path) == stale.uri) {
                self.remove_resource(&stale.uri);
            }
        }
        for (path, text) in &skill.files {
            let mime = if path.ends_with(".md") { "text/markdown" } else { "text/plain" };
            let uri = skill.uri(path);
            // The SKILL.md resource carries the skill's own name and description.
            let resource = if path == "SKILL.md" {
                let description = skill.frontmatter.get("description").and_then(Value::as_str).unwrap_or_default();
                Resource::new(uri.clone(), skill.name.clone()).with_description(description)
            } else {
                Resource::new(uri.clone(), format!("{}/{path}", skill.name))
            }
            .with_mime_type(mime);
            let text = text.clone();
            self.replace_resource(resource, move |r: ResourceRequest, _c: RequestContext| {
                let contents = ResourceContents::text(r.uri, text.clone()).with_mime_type(mime);
                async move { Ok(ReadResourceResult { contents: vec![contents], meta: None }) }
            });
        }
        skills.insert(entry.uri.clone(), entry);
        Ok(())
    }
}

impl ServerBuilder {
    /// Serves a skill (see [`Server::add_skill`]); a second skill of the same name is a
    /// configuration mistake.
    pub fn skill(self, skill: Skill) -> Self {
        let outcome = self.server.add_skill(skill);
        self.record(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SKILL_MD: &str = "---\nname: pdf-processing\ndescription: Extract PDF text\n---\n\nBody.\n";

    #[test]
    fn a_skill_lists_every_file_with_its_digest_and_size() {
        let skill = Skill::new(SKILL_MD).unwrap().with_file("references/FORMS.md", "Forms.\n").unwrap();
        let entry = skill.entry();
        assert_eq!(entry.uri, "skill://pdf-processing/SKILL.md");
        assert_eq!(entry.frontmatter["name"], "pdf-processing");
        assert_eq!(entry.resources.len(), 2);
        assert_eq!(entry.resources[1].uri, "skill://pdf-processing/references/FORMS.md");
        assert_eq!(entry.resources[1].size, 7);
        assert_eq!(entry.resources[0].digest, sha256_digest(SKILL_MD.as_bytes()));
    }

    #[test]
    fn bad_skills_are_refused() {
        assert!(Skill::new(SKILL_MD.replace("pdf-processing", "PDF--x")).is_err());
        assert!(Skill::new(SKILL_MD.replace("description: Extract PDF text\n", "")).is_err());
        assert!(Skill::new("no frontmatter").is_err());
        let skill = Skill::new(SKILL_MD).unwrap();
        assert!(skill.clone().with_file("../escape.md", "x").is_err());
        assert!(skill.clone().with_file("SKILL.md", "again").is_err());
        assert!(skill.with_file("a//b", "x").is_err());
    }
}
