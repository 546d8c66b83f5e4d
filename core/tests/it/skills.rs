//! The skills extension end to end: a server serves a skill, a 2026-07-28 client lists it,
//! loads it and reads its supporting file, each checked against the entry.

use crate::common;

use mcpweft::{
    Client, ClientOptions, Server,
    model::{ClientCapabilities, Implementation, JsonObject, STATELESS_PROTOCOL_VERSION},
    server::Skill,
    skills::SKILLS_EXTENSION,
    transport::memory_pair,
};

const SKILL_MD: &str = "---\nname: pdf-processing\ndescription: Extract PDF text\n---\n\nRead references/FORMS.md.\n";

fn server() -> Server {
    let skill = Skill::new(SKILL_MD).unwrap().with_file("references/FORMS.md", "Fill each field.\n").unwrap();
    Server::builder(Implementation::new("skills", "1")).skill(skill).build().unwrap()
}

async fn connect(server: &Server, version: &str) -> Client {
    let (client_side, server_side) = memory_pair();
    server.serve(server_side);
    let capabilities = ClientCapabilities::default().with_extension(SKILLS_EXTENSION, JsonObject::new());
    let options = ClientOptions::new("host", "1").with_capabilities(capabilities).with_protocol_version(version);
    common::within(Client::connect(client_side, options)).await.unwrap()
}

#[tokio::test]
async fn a_host_lists_loads_and_reads_a_skill_checked_against_its_entry() {
    let server = server();
    let client = connect(&server, STATELESS_PROTOCOL_VERSION).await;
    assert!(client.supports_skills(), "{:?}", client.server().capabilities.extensions);
    let skills = common::within(client.list_skills()).await.unwrap();
    assert_eq!(skills.len(), 1);
    let entry = &skills[0];
    assert_eq!(entry.uri, "skill://pdf-processing/SKILL.md");
    assert_eq!(entry.resources.len(), 2);
    let skill = common::within(client.load_skill(entry)).await.unwrap();
    assert_eq!(skill.name(), Some("pdf-processing"));
    assert_eq!(skill.body, "\nRead references/FORMS.md.\n");
    let forms = common::within(client.read_skill_file(entry, "skill://pdf-processing/references/FORMS.md")).await;
    assert_eq!(forms.unwrap(), b"Fill each field.\n");
    // A file the entry does not list is not read.
    let elsewhere = client.read_skill_file(entry, "skill://pdf-processing/other.md").await;
    assert!(elsewhere.is_err());
}

#[tokio::test]
async fn a_tampered_file_is_refused() {
    let server = server();
    let client = connect(&server, STATELESS_PROTOCOL_VERSION).await;
    let mut entry = common::within(client.list_skills()).await.unwrap().remove(0);
    // The entry a host holds says another digest than the server's file has.
    entry.resources[1].digest = format!("sha256:{}", "0".repeat(64));
    let refused = client.read_skill_file(&entry, "skill://pdf-processing/references/FORMS.md").await.unwrap_err();
    assert!(refused.to_string().contains("digest"), "{refused}");
    let mut changed = entry.clone();
    changed.frontmatter.insert("description".to_owned(), "Something else".into());
    let refused = client.load_skill(&changed).await.unwrap_err();
    assert!(refused.to_string().contains("description"), "{refused}");
}

#[tokio::test]
async fn skills_get_returns_one_entry_and_refuses_an_unknown_uri() {
    let server = server();
    let client = connect(&server, STATELESS_PROTOCOL_VERSION).await;
    let params = serde_json::json!({ "uri": "skill://pdf-processing/SKILL.md" });
    let got = client.request("skills/get", Some(params), Default::default()).await.unwrap();
    assert_eq!(got["skill"]["frontmatter"]["name"], "pdf-processing");
    let unknown = serde_json::json!({ "uri": "skill://nothing/SKILL.md" });
    match client.request("skills/get", Some(unknown), Default::default()).await {
        Err(mcpweft::Error::Rpc(e)) => assert_eq!(e.code, -32602),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_skill_directory_lists_its_direct_children() {
    let server = server();
    let client = connect(&server, STATELESS_PROTOCOL_VERSION).await;
    let settings = &client.server().capabilities.extensions.as_ref().unwrap()[SKILLS_EXTENSION];
    assert_eq!(settings["directoryRead"], true);
    let read = |uri: &str| {
        client.request("resources/directory/read", Some(serde_json::json!({ "uri": uri })), Default::default())
    };
    let root = common::within(read("skill://pdf-processing")).await.unwrap();
    let children: Vec<(&str, &str)> = root["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["uri"].as_str().unwrap(), c["mimeType"].as_str().unwrap()))
        .collect();
    assert_eq!(
        children,
        [
            ("skill://pdf-processing/SKILL.md", "text/markdown"),
            ("skill://pdf-processing/references", "inode/directory")
        ]
    );
    let nested = common::within(read("skill://pdf-processing/references/")).await.unwrap();
    assert_eq!(nested["resources"][0]["uri"], "skill://pdf-processing/references/FORMS.md");
    match read("skill://pdf-processing/SKILL.md").await {
        Err(mcpweft::Error::Rpc(e)) => assert_eq!(e.code, -32602, "a file is no directory"),
        other => panic!("{other:?}"),
    }
}
