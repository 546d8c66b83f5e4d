//! The skills extension (`io.modelcontextprotocol/skills`) on the client side: list a server's
//! skills, load one, and read its supporting files, each file verified by the core against
//! the skill's entry (size, digest, frontmatter) before it is returned.

use mcpweft::skills::SkillEntry;
use serde_json::{Value, json};

use crate::{Client, Task, server::parse};

impl Client {
    /// Lists the server's skills (the entries of `skills/list`, every page), reading no skill
    /// file. Fails when the server did not declare the skills extension.
    pub fn list_skills(&self) -> Task<Value> {
        let client = self.inner.clone();
        Task::new(async move { Ok(serde_json::to_value(client.list_skills().await?).unwrap_or(Value::Null)) })
    }

    /// Loads the skill of `entry` (one entry of [`Client::list_skills`]): fetches its
    /// `SKILL.md`, verifies it against the entry and returns `{"entry", "frontmatter", "body"}`.
    pub fn load_skill(&self, entry: Value) -> Task<Value> {
        let client = self.inner.clone();
        Task::new(async move {
            let entry: SkillEntry = parse(entry, "skill entry")?;
            let skill = client.load_skill(&entry).await?;
            Ok(json!({ "entry": skill.entry, "frontmatter": skill.frontmatter, "body": skill.body }))
        })
    }

    /// Reads the file `uri` of the skill of `entry`, which must list it, and returns its bytes
    /// once they match the entry's size and digest.
    pub fn read_skill_file(&self, entry: Value, uri: String) -> Task<Vec<u8>> {
        let client = self.inner.clone();
        Task::new(async move {
            let entry: SkillEntry = parse(entry, "skill entry")?;
            Ok(client.read_skill_file(&entry, &uri).await?)
        })
    }
}
