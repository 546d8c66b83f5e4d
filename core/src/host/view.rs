//! The one view of the features of every ready server, with names kept apart and collisions
//! found.

use indexmap::IndexMap;

use super::config::ServerConfig;
use crate::model::{Prompt, Resource, ResourceTemplate, Tool};

/// A tool of one server, as the host offers it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct HostTool {
    /// The name the host offers it by: the server's prefix, the separator, then the tool's
    /// own name (`github__create_issue`), or the tool's own name when the prefix is empty.
    pub name: String,
    /// The server that offers it.
    pub server: String,
    /// The tool as the server lists it, under its own name.
    pub tool: Tool,
}

impl HostTool {
    /// Returns the tool under the host's name, as a host lists it to a model or to its own
    /// clients.
    pub fn namespaced(&self) -> Tool {
        let mut tool = self.tool.clone();
        tool.name.clone_from(&self.name);
        tool
    }

    /// Returns the tool's binding to an app view (MCP Apps), if it has one.
    pub fn app(&self) -> Option<crate::model::apps::AppToolMeta> {
        crate::model::apps::AppToolMeta::of(&self.tool)
    }

    /// Returns whether the host may list the tool to its model: a tool only a view may call is
    /// not.
    pub fn visible_to_model(&self) -> bool {
        crate::model::apps::visible_to_model(&self.tool)
    }
}

/// A prompt of one server, as the host offers it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct HostPrompt {
    /// The name the host offers it by, made as a [`HostTool`]'s is.
    pub name: String,
    /// The server that offers it.
    pub server: String,
    /// The prompt as the server lists it, under its own name.
    pub prompt: Prompt,
}

impl HostPrompt {
    /// Returns the prompt under the host's name.
    pub fn namespaced(&self) -> Prompt {
        let mut prompt = self.prompt.clone();
        prompt.name.clone_from(&self.name);
        prompt
    }
}

/// A resource of one server; resources keep their URIs.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct HostResource {
    /// The server that lists it.
    pub server: String,
    /// The resource as the server lists it.
    pub resource: Resource,
}

/// A resource template of one server; templates keep their URI templates.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct HostResourceTemplate {
    /// The server that lists it.
    pub server: String,
    /// The template as the server lists it.
    pub template: ResourceTemplate,
}

/// What kind of name two servers offer at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CollisionKind {
    /// A tool name, after the prefixes.
    Tool,
    /// A prompt name, after the prefixes.
    Prompt,
    /// A resource URI.
    Resource,
    /// A resource template.
    ResourceTemplate,
}

/// A name that several ready servers offer at once. The host offers none of them under it:
/// nothing is shadowed, and calling the name is an [`Error::Config`](crate::Error::Config)
/// until the servers get prefixes of their own.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Collision {
    /// What kind of name it is.
    pub kind: CollisionKind,
    /// The name (a tool or prompt name after the prefixes, or a URI or URI template).
    pub name: String,
    /// The servers that offer it, in the order of the configuration.
    pub servers: Vec<String>,
}

/// What one ready server lists.
#[derive(Clone, Debug, Default)]
pub(super) struct Lists {
    pub(super) tools: Vec<Tool>,
    pub(super) resources: Vec<Resource>,
    pub(super) templates: Vec<ResourceTemplate>,
    pub(super) prompts: Vec<Prompt>,
}

/// The features of every ready server, each under the name the host offers it by.
#[derive(Debug, Default)]
pub(super) struct View {
    pub(super) tools: IndexMap<String, HostTool>,
    pub(super) prompts: IndexMap<String, HostPrompt>,
    pub(super) resources: IndexMap<String, HostResource>,
    pub(super) templates: IndexMap<String, HostResourceTemplate>,
    pub(super) collisions: Vec<Collision>,
}

/// Gathers items by key; a key with more than one item is a collision.
struct Gather<T> {
    kind: CollisionKind,
    items: IndexMap<String, Vec<T>>,
}

impl<T> Gather<T> {
    fn new(kind: CollisionKind) -> Self {
        Gather { kind, items: IndexMap::new() }
    }

    fn add(&mut self, key: String, item: T) {
        self.items.entry(key).or_default().push(item);
    }

    /// Keeps the keys of one item and adds the others to `collisions`.
    fn finish(self, collisions: &mut Vec<Collision>, server: impl Fn(&T) -> &str) -> IndexMap<String, T> {
        let mut kept = IndexMap::new();
        for (key, mut items) in self.items {
            if items.len() == 1 {
                if let Some(item) = items.pop() {
                    kept.insert(key, item);
                }
            } else {
                let servers = items.iter().map(|i| server(i).to_owned()).collect();
                collisions.push(Collision { kind: self.kind, name: key, servers });
            }
        }
        kept
    }
}

/// Joins a prefix and a name with the separator; an empty prefix keeps the name.
pub(super) fn namespaced(prefix: &str, separator: &str, name: &str) -> String {
    if prefix.is_empty() { name.to_owned() } else { format!("{prefix}{separator}{name}") }
}

impl View {
    /// Builds the view of the ready servers' lists, in the order of the configuration.
    pub(super) fn build<'a>(separator: &str, servers: impl Iterator<Item = (&'a ServerConfig, &'a Lists)>) -> View {
        let mut tools = Gather::new(CollisionKind::Tool);
        let mut prompts = Gather::new(CollisionKind::Prompt);
        let mut resources = Gather::new(CollisionKind::Resource);
        let mut templates = Gather::new(CollisionKind::ResourceTemplate);
        for (config, lists) in servers {
            let server = &config.name;
            for tool in lists.tools.iter().filter(|t| config.offers_tool(&t.name)) {
                let name = namespaced(&config.prefix, separator, &tool.name);
                tools.add(name.clone(), HostTool { name, server: server.clone(), tool: tool.clone() });
            }
            for prompt in &lists.prompts {
                let name = namespaced(&config.prefix, separator, &prompt.name);
                prompts.add(name.clone(), HostPrompt { name, server: server.clone(), prompt: prompt.clone() });
            }
            for resource in &lists.resources {
                resources
                    .add(resource.uri.clone(), HostResource { server: server.clone(), resource: resource.clone() });
            }
            for template in &lists.templates {
                let item = HostResourceTemplate { server: server.clone(), template: template.clone() };
                templates.add(template.uri_template.clone(), item);
            }
        }
        let mut collisions = Vec::new();
        View {
            tools: tools.finish(&mut collisions, |t| &t.server),
            prompts: prompts.finish(&mut collisions, |p| &p.server),
            resources: resources.finish(&mut collisions, |r| &r.server),
            templates: templates.finish(&mut collisions, |t| &t.server),
            collisions,
        }
    }

    /// The servers that offer `name` of `kind` at once, when it is a collision.
    pub(super) fn collision(&self, kind: CollisionKind, name: &str) -> Option<&Collision> {
        self.collisions.iter().find(|c| c.kind == kind && c.name == name)
    }
}
