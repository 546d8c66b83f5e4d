//! Requests for input across rounds (revision 2026-07-28, "multi round-trip requests").
//!
//! A 2026-07-28 client gets no server-to-client requests. When a handler asks for input
//! (elicitation, sampling, roots) that the request does not carry yet, the server answers
//! with an `input_required` result listing what it needs and a `requestState`; the client
//! retries the request with `inputResponses` and that state, and the handler runs again from the
//! start, now finding its answers. The state is sealed with a key of the server
//! (XChaCha20-Poly1305): a client can neither read the handler's state in it nor forge one. It is
//! bound to the request it was made for, to the identity that made that request and to a short
//! lifetime ([`STATE_LIFETIME`]), so it cannot be replayed for another request, by another
//! identity or later on.
//!
//! `inputResponses` can be large: they are moved out of the request's params once, and each
//! answer out of the round when the handler takes it, never copied.

use std::{
    io::Write as _,
    sync::{
        Arc, Mutex, OnceLock,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use base64::Engine;
use chacha20poly1305::{Key, KeyInit, XChaCha20Poly1305, XNonce, aead::Aead};
use indexmap::IndexMap;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::tasks::TaskStore;
use crate::{jsonrpc::ErrorData, sync::lock};

/// How long a `requestState` is accepted after it was made: the time a user has to answer the
/// requests for input of one round.
pub(crate) const STATE_LIFETIME: Duration = Duration::from_secs(10 * 60);

/// What one run of a 2026-07-28 request knows about input: the answers the client sent, and
/// what the handler asked for that is not among them.
#[derive(Default)]
pub(crate) struct Round {
    /// `inputResponses` of the request, by key, until the handler takes them.
    responses: Mutex<Map<String, Value>>,
    /// The keys whose answers the handler has taken in this run.
    taken: Mutex<Vec<String>>,
    /// What identifies the request across its rounds (see [`request_digest`]).
    request: String,
    /// A digest of the identity that sent the request, when the transport authenticates.
    principal: Option<String>,
    /// The handler's own state carried across rounds, as the client sent it back.
    state: Option<Value>,
    /// How many rounds came before this one.
    number: u64,
    /// Requests for input the client has not answered yet, by key.
    pending: Mutex<IndexMap<String, Value>>,
    /// The state the handler wants carried to the next round.
    next_state: Mutex<Option<Value>>,
    /// A client capability the handler needed that the client did not declare.
    missing: Mutex<Option<Value>>,
    /// How many requests for input the handler made, for the keys it does not name.
    asked: AtomicUsize,
    /// The task this round's call became (tasks extension): requests for input the round has
    /// no answer for then wait for `tasks/update` instead of ending the round.
    task: OnceLock<(Arc<TaskStore>, String)>,
}

impl Round {
    /// Moves the answer the client gave under `key` out of this round's `inputResponses`: an
    /// answer is handed out once, never copied. Asking again for a key this run has already
    /// taken is refused with a message saying so, since its answer is gone; a handler asks each
    /// key once per run (the keys it does not name are new each time).
    pub(crate) fn take_response(&self, key: &str) -> Result<Option<Value>, String> {
        if let Some(answer) = lock(&self.responses).remove(key) {
            lock(&self.taken).push(key.to_owned());
            return Ok(Some(answer));
        }
        if lock(&self.taken).iter().any(|taken| taken == key) {
            return Err(format!(
                "the answer under input key `{key}` was already taken by this run of the handler: ask each key once"
            ));
        }
        Ok(None)
    }

    /// Makes the rest of this round's call run as task `task_id` of `store`.
    pub(crate) fn escalate(&self, store: Arc<TaskStore>, task_id: String) {
        let _ = self.task.set((store, task_id));
    }

    /// The task this round's call became, if it did.
    pub(crate) fn task(&self) -> Option<&(Arc<TaskStore>, String)> {
        self.task.get()
    }

    /// Records the request for input under `key` (`method` with `params`), which the client
    /// has not answered yet, for the `input_required` result that ends this round.
    pub(crate) fn require(&self, key: &str, method: &str, params: Value) {
        lock(&self.pending).insert(key.to_owned(), json!({ "method": method, "params": params }));
    }

    /// The key of the handler's next request for input that it does not name itself.
    pub(crate) fn next_key(&self, method: &str) -> String {
        let n = self.asked.fetch_add(1, Ordering::Relaxed) + 1;
        format!("{}-{n}", method.replace('/', "-"))
    }

    /// Records that the handler needed the client capability `capability` (such as
    /// `{"sampling": {}}`), which the client did not declare.
    pub(crate) fn missing_capability(&self, capability: Value) {
        *lock(&self.missing) = Some(capability);
    }

    /// The state a previous round left for the handler.
    pub(crate) fn state(&self) -> Option<&Value> {
        self.state.as_ref()
    }

    /// Sets the state to carry to the next round.
    pub(crate) fn set_state(&self, state: Value) {
        *lock(&self.next_state) = Some(state);
    }
}

/// The server's key for `requestState`, and the reading and writing of rounds.
pub(crate) struct Rounds {
    /// A random key of this server; `None` when the operating system's random source failed,
    /// and then no state is issued or accepted.
    key: Option<[u8; 32]>,
    /// The key every process of a cluster shares, once set; it replaces `key`.
    shared: std::sync::OnceLock<[u8; 32]>,
}

impl Rounds {
    /// Creates the rounds of a server with a fresh random key.
    pub(crate) fn new() -> Self {
        let mut key = [0u8; 32];
        match getrandom::fill(&mut key) {
            Ok(()) => Rounds { key: Some(key), shared: std::sync::OnceLock::new() },
            Err(e) => {
                tracing::error!(error = %e, "no random key for requestState: requests for input across rounds fail");
                Rounds { key: None, shared: std::sync::OnceLock::new() }
            }
        }
    }

    /// Reads the round of a request sent by `principal` (who the transport authenticated, if
    /// it does) from its `inputResponses` and `requestState`, which it moves out of `params`,
    /// checking that the state was made by this server, for this request and identity, less
    /// than [`STATE_LIFETIME`] ago.
    ///
    /// `tasks/update` keeps its `inputResponses`: they answer a task, not a round.
    pub(crate) fn open(
        &self,
        method: &str,
        params: &mut Option<Value>,
        principal: Option<String>,
    ) -> Result<Round, ErrorData> {
        let (responses, state) = match params {
            // Removed in place, the other members keeping their order, which the request's
            // digest follows: a client may send these two first (the official Python SDK does).
            Some(Value::Object(map)) if method != crate::model::methods::TASKS_UPDATE => {
                (map.shift_remove("inputResponses"), map.shift_remove("requestState"))
            }
            _ => (None, None),
        };
        let responses = match responses {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(map)) => map,
            Some(_) => return Err(ErrorData::invalid_params("inputResponses must be an object")),
        };
        let request = request_digest(method, params.as_ref());
        let principal = principal.map(|p| digest(p.as_bytes()));
        let mut round = Round { responses: Mutex::new(responses), request, principal, ..Round::default() };
        let Some(state) = state else { return Ok(round) };
        let Some(text) = state.as_str() else {
            return Err(ErrorData::invalid_params("requestState must be a string"));
        };
        let payload = self.verify(text).ok_or_else(|| {
            ErrorData::invalid_params("requestState was not issued by this server for this request, or was altered")
        })?;
        if payload["request"].as_str() != Some(round.request.as_str()) {
            return Err(ErrorData::invalid_params("requestState belongs to another request"));
        }
        if payload["principal"].as_str() != round.principal.as_deref() {
            return Err(ErrorData::invalid_params("requestState was issued to another identity"));
        }
        if payload["expires"].as_u64().is_none_or(|expires| expires <= now()) {
            return Err(ErrorData::invalid_params("requestState has expired: send the request again without it"));
        }
        round.number = payload["round"].as_u64().unwrap_or(0);
        round.state = payload.get("state").cloned().filter(|s| !s.is_null());
        Ok(round)
    }

    /// The answer to a round that ended asking for input: an `input_required` result, or the
    /// error for a missing client capability; `None` when the round needs nothing more.
    pub(crate) fn close(&self, round: &Round) -> Option<Result<Value, ErrorData>> {
        if let Some(capability) = lock(&round.missing).take() {
            let error = ErrorData::new(
                crate::jsonrpc::MISSING_REQUIRED_CLIENT_CAPABILITY,
                "the request needs a client capability the client did not declare",
            )
            .with_data(json!({ "requiredCapabilities": capability }));
            return Some(Err(error));
        }
        let pending = std::mem::take(&mut *lock(&round.pending));
        if pending.is_empty() {
            return None;
        }
        let state = lock(&round.next_state).take().or_else(|| round.state.clone());
        let payload = json!({
            "request": round.request,
            "principal": round.principal,
            "expires": now() + STATE_LIFETIME.as_secs(),
            "round": round.number + 1,
            "state": state,
        });
        Some(Ok(json!({
            "resultType": "input_required",
            "inputRequests": pending,
            "requestState": match self.sign(&payload) {
                Some(state) => state,
                None => return Some(Err(ErrorData::internal_error("this server cannot sign requestState"))),
            },
        })))
    }

    /// Uses `key` from now on instead of this process's own, so that `requestState` made by any
    /// process sharing it is accepted by every other; the first key set stays.
    #[cfg(feature = "redis")]
    pub(crate) fn share_key(&self, key: [u8; 32]) {
        let _ = self.shared.set(key);
    }

    fn cipher(&self) -> Option<XChaCha20Poly1305> {
        let key = self.shared.get().or(self.key.as_ref())?;
        Some(XChaCha20Poly1305::new(Key::from_slice(key)))
    }

    /// Seals `payload`: a random nonce, then the payload encrypted and authenticated, in base64.
    fn sign(&self, payload: &Value) -> Option<String> {
        let mut nonce = XNonce::default();
        getrandom::fill(&mut nonce).ok()?;
        let mut sealed = nonce.to_vec();
        sealed.extend(self.cipher()?.encrypt(&nonce, payload.to_string().as_bytes()).ok()?);
        Some(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sealed))
    }

    /// Opens what [`Rounds::sign`] sealed, or `None` when it was not sealed with this key or was
    /// altered.
    fn verify(&self, text: &str) -> Option<Value> {
        let sealed = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(text).ok()?;
        let nonce_len = XNonce::default().len();
        if sealed.len() < nonce_len {
            return None;
        }
        let (nonce, ciphertext) = sealed.split_at(nonce_len);
        let plain = self.cipher()?.decrypt(XNonce::from_slice(nonce), ciphertext).ok()?;
        serde_json::from_slice(&plain).ok()
    }
}

/// A digest of what identifies a request across its rounds: its method and params, without
/// `_meta`, which changes from round to round (`inputResponses` and `requestState` are out of
/// the params by then).
fn request_digest(method: &str, params: Option<&Value>) -> String {
    let mut hash = Sha256::new();
    hash.update(method.as_bytes());
    hash.update([0]);
    let written: std::io::Result<()> = match params {
        Some(Value::Object(map)) => map.iter().filter(|(key, _)| *key != "_meta").try_for_each(|(key, value)| {
            serde_json::to_writer(&mut hash, key)?;
            hash.write_all(b":")?;
            serde_json::to_writer(&mut hash, value)?;
            hash.write_all(b",")
        }),
        other => serde_json::to_writer(&mut hash, &other).map_err(Into::into),
    };
    // Writing JSON into a hash cannot fail.
    debug_assert!(written.is_ok());
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(hash.finalize())
}

/// A digest of `bytes`, in base64.
fn digest(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(bytes))
}

/// Seconds since the Unix epoch.
fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Opens a round of `tools/call` with `params`, sent by `principal`.
    fn open(rounds: &Rounds, params: Value, principal: Option<&str>) -> Result<Round, ErrorData> {
        rounds.open("tools/call", &mut Some(params), principal.map(str::to_owned))
    }

    /// The `requestState` of a first round of `params` by `principal` that asked for input.
    fn first_state(rounds: &Rounds, params: Value, principal: Option<&str>) -> String {
        let round = open(rounds, params, principal).unwrap();
        assert_eq!(round.take_response("guests"), Ok(None));
        round.require("guests", "elicitation/create", json!({ "message": "How many?" }));
        round.set_state(json!({ "step": 1 }));
        let answer = rounds.close(&round).unwrap().unwrap();
        assert_eq!(answer["resultType"], "input_required");
        assert_eq!(answer["inputRequests"]["guests"]["method"], "elicitation/create");
        answer["requestState"].as_str().unwrap().to_owned()
    }

    #[test]
    fn a_state_opens_only_for_its_request_and_untouched() {
        let rounds = Rounds::new();
        let state = first_state(&rounds, json!({ "name": "book", "arguments": { "n": 1 } }), None);
        // The handler's state is sealed: the client cannot read it.
        let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(&state).unwrap();
        assert!(!String::from_utf8_lossy(&raw).contains("step"), "the state is readable");

        let retry = json!({ "name": "book", "arguments": { "n": 1 }, "requestState": state, "_meta": { "a": 1 },
            "inputResponses": { "guests": { "action": "accept", "content": { "n": 2 } } } });
        let round = open(&rounds, retry.clone(), None).unwrap();
        assert_eq!(round.state(), Some(&json!({ "step": 1 })));
        assert!(round.take_response("guests").unwrap().is_some());
        assert!(rounds.close(&round).is_none());

        // The round's own members may come first, as the official Python SDK sends them.
        let leading = json!({ "inputResponses": { "guests": { "action": "decline" } }, "requestState": state,
            "name": "book", "arguments": { "n": 1 }, "_meta": { "a": 1 } });
        assert_eq!(open(&rounds, leading, None).unwrap().state(), Some(&json!({ "step": 1 })));

        let other = json!({ "name": "book", "arguments": { "n": 2 }, "requestState": state });
        assert!(open(&rounds, other, None).is_err(), "replayed for another request");
        let mut forged = state.clone();
        forged.insert(3, 'x');
        let forged = json!({ "name": "book", "arguments": { "n": 1 }, "requestState": forged });
        assert!(open(&rounds, forged, None).is_err(), "altered");
        assert!(open(&Rounds::new(), retry, None).is_err(), "made by another server");
    }

    #[test]
    fn a_state_opens_only_for_the_identity_it_was_issued_to() {
        let rounds = Rounds::new();
        let params = json!({ "name": "book" });
        let state = first_state(&rounds, params.clone(), Some("issuer\nalice\nclient"));
        let retry = json!({ "name": "book", "requestState": state });
        let refused = open(&rounds, retry.clone(), Some("issuer\nmallory\nclient")).err().unwrap();
        assert!(refused.message.contains("another identity"), "{}", refused.message);
        assert!(open(&rounds, retry.clone(), None).is_err(), "presented without an identity");
        assert!(open(&rounds, retry, Some("issuer\nalice\nclient")).is_ok());
        let anonymous = first_state(&rounds, params, None);
        let retry = json!({ "name": "book", "requestState": anonymous });
        assert!(open(&rounds, retry, Some("issuer\nalice\nclient")).is_err(), "minted without an identity");
    }

    #[test]
    fn a_state_expires() {
        let rounds = Rounds::new();
        let payload = |expires: u64| {
            let request = request_digest("tools/call", Some(&json!({ "name": "book" })));
            rounds.sign(&json!({ "request": request, "principal": null, "expires": expires, "round": 1 })).unwrap()
        };
        let late = json!({ "name": "book", "requestState": payload(now() - 1) });
        let refused = open(&rounds, late, None).err().unwrap();
        assert!(refused.message.contains("expired"), "{}", refused.message);
        let timely = json!({ "name": "book", "requestState": payload(now() + 60) });
        assert!(open(&rounds, timely, None).is_ok());
        let forever = json!({ "name": "book", "requestState": rounds.sign(&json!({ "request": "x" })).unwrap() });
        assert!(open(&rounds, forever, None).is_err(), "a state without an expiry");
    }

    #[test]
    fn input_responses_move_out_of_the_params_except_for_tasks_update_and_out_of_the_round_once() {
        let rounds = Rounds::new();
        let answers = json!({ "guests": { "action": "accept" } });
        let mut params = Some(json!({ "name": "book", "inputResponses": answers.clone() }));
        let round = rounds.open("tools/call", &mut params, None).unwrap();
        assert_eq!(params, Some(json!({ "name": "book" })));
        assert_eq!(round.take_response("guests"), Ok(Some(answers["guests"].clone())));
        let again = round.take_response("guests").unwrap_err();
        assert!(again.contains("`guests` was already taken"), "{again}");
        assert_eq!(round.take_response("other"), Ok(None));
        let mut update = Some(json!({ "taskId": "t", "inputResponses": answers.clone() }));
        rounds.open("tasks/update", &mut update, None).unwrap();
        assert_eq!(update, Some(json!({ "taskId": "t", "inputResponses": answers })));
    }
}
