//! Types and pure state machines shared by the Nexus bridge and the web app.
//! No I/O lives here: frames, the chat socket's messages, the tool catalog, typed tool parameters, error codes, the reconnect machine, the mutual proof of the secret.

pub mod catalog;
pub mod chat;
pub mod error;
pub mod frame;
pub mod limits;
pub mod params;
pub mod proof;
pub mod reconnect;
pub mod source_rules;
pub mod wording;

pub use catalog::{ToolName, ToolSpec};
pub use error::{ErrorCode, ToolError};
pub use frame::{
    CallId, Frame, FrameError, GraphStats, Outcome, PENDING_SHOWN, REPO_PATHS_BYTES, RejectCode,
    RepoWatch, Role, Token, ToolOutput,
};
