//! Why a command failed, and the exit code that says it.

/// What kind of failure ended a command; each has its exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The call failed, or the tool reported an error: exit code 1.
    Failed,
    /// The command line or the configuration is wrong: exit code 2, as clap's own errors.
    Usage,
    /// The server could not be started or reached: exit code 3.
    Unreachable,
}

/// A failure to report on stderr before exiting.
#[derive(Debug)]
pub(crate) struct Failure {
    /// What kind of failure it is.
    pub(crate) kind: Kind,
    /// What went wrong, in words. A spawned server's stderr is not repeated here: the core
    /// forwards it to this process's stderr as it comes.
    pub(crate) message: String,
}

impl Failure {
    /// A failed call.
    pub(crate) fn failed(message: impl Into<String>) -> Self {
        Failure { kind: Kind::Failed, message: message.into() }
    }

    /// A mistake of the command line or the configuration.
    pub(crate) fn usage(message: impl Into<String>) -> Self {
        Failure { kind: Kind::Usage, message: message.into() }
    }

    /// A server that could not be started or reached.
    pub(crate) fn unreachable(message: impl Into<String>) -> Self {
        Failure { kind: Kind::Unreachable, message: message.into() }
    }

    /// A tool result with `isError` set: its message was printed already.
    pub(crate) fn tool_error() -> Self {
        Failure { kind: Kind::Failed, message: String::new() }
    }

    /// The exit code of this failure.
    pub(crate) fn exit_code(&self) -> u8 {
        match self.kind {
            Kind::Failed => 1,
            Kind::Usage => 2,
            Kind::Unreachable => 3,
        }
    }

    /// Writes the failure to stderr.
    pub(crate) fn report(&self) {
        if !self.message.is_empty() {
            eprintln!("mcpweft: {}", self.message);
        }
    }
}

impl From<mcpweft::Error> for Failure {
    /// A configuration mistake is a usage error; a connection that ended is a failed call
    /// that says why (its exit code or signal), like anything else.
    fn from(error: mcpweft::Error) -> Self {
        match error {
            error @ mcpweft::Error::Config(_) => Failure::usage(error.to_string()),
            mcpweft::Error::Disconnected(reason) => Failure::failed(reason.message.clone()),
            other => Failure::failed(other.to_string()),
        }
    }
}
