//! Wire types of MCP revision 2025-11-25.
//!
//! Every params, result, notification params, capability and content type of the
//! specification's schema is modelled here with its exact JSON field names. Unknown
//! fields are tolerated on input, optional fields are never emitted as `null`, and
//! free-form JSON (schemas, structured content, `_meta`, …) is kept raw so that
//! unknown keys round-trip.

pub mod apps;
pub mod capabilities;
pub mod common;
pub mod completion;
pub mod content;
pub mod elicitation;
pub mod headers;
pub mod lifecycle;
pub mod logging;
pub mod methods;
pub mod notifications;
pub mod prompts;
pub mod resources;
pub mod roots;
pub mod sampling;
pub mod skills;
pub mod tasks;
pub mod tools;

/// The insertion-ordered map of the model's typed JSON objects (form fields, submitted values,
/// completion context), so that they keep the order their author wrote them in.
pub use indexmap::IndexMap;

pub use capabilities::*;
pub use common::*;
pub use completion::*;
pub use content::*;
pub use elicitation::*;
pub use lifecycle::*;
pub use logging::*;
pub use notifications::*;
pub use prompts::*;
pub use resources::*;
pub use roots::*;
pub use sampling::*;
pub use tasks::*;
pub use tools::*;
