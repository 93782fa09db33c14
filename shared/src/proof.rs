//! Mutual proof of a shared secret before anything else moves: each side brings a fresh nonce,
//! the hub proves first, then the client; HMAC-SHA-256 over a transcript naming both.
//!
//! The transcript is `nexus-proof/2 \0 SPEAKER \0 PURPOSE \0 PORT \0 CLIENT-NONCE \0 HUB-NONCE`.
//! The speaker (`hub`, `client`) keeps one side's proof from ever passing for the other's (a
//! reflected challenge fails); the purpose keeps a `/chat` proof from opening `/ws`; the port is
//! the one the client dialled and the hub listens on, so a program on another port cannot relay
//! a proof from the user's hub there. Pure: randomness comes in as arguments, no I/O.

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// Random bytes in a nonce (sent as twice as many hex digits).
pub const NONCE_BYTES: usize = 32;

/// What a proof opens; each has its own transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// The tab's `/ws` socket.
    Tab,
    /// A peer bridge's `/ws` socket.
    Peer,
    /// `nexus-bridge status` on `/ws`.
    Monitor,
    /// The tab's `/chat` socket.
    Chat,
}

impl Purpose {
    fn as_str(self) -> &'static str {
        match self {
            Purpose::Tab => "tab",
            Purpose::Peer => "peer",
            Purpose::Monitor => "monitor",
            Purpose::Chat => "chat",
        }
    }
}

/// Why a proof did not hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProofError {
    /// A nonce that is not 64 hex digits.
    #[error("the nonce is not {} hex digits", NONCE_BYTES * 2)]
    BadNonce,
    /// The hub's nonce equals the client's: the client's own challenge sent back.
    #[error("the other side sent this side's own nonce back")]
    Reflected,
    /// The proof was not made with the shared secret over this transcript.
    #[error("the other side did not prove it knows the secret")]
    WrongProof,
}

/// Hex digits of `bytes`, lowercase.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

fn valid_nonce(nonce: &str) -> bool {
    nonce.len() == NONCE_BYTES * 2 && nonce.bytes().all(|b| b.is_ascii_hexdigit())
}

/// One proof's transcript, fixed at both nonces.
#[derive(Debug, Clone)]
struct Transcript {
    purpose: Purpose,
    port: u16,
    client_nonce: String,
    hub_nonce: String,
}

impl Transcript {
    fn mac(&self, key: &str, speaker: &str) -> Hmac<Sha256> {
        // HMAC takes a key of any length (`new_from_slice` never fails for it); the fallback
        // only keeps this free of a panic path.
        let mut mac = Hmac::<Sha256>::new_from_slice(key.as_bytes())
            .unwrap_or_else(|_| Hmac::<Sha256>::new(&Default::default()));
        for part in [
            "nexus-proof/2",
            speaker,
            self.purpose.as_str(),
            &self.port.to_string(),
            &self.client_nonce.to_ascii_lowercase(),
            &self.hub_nonce.to_ascii_lowercase(),
        ] {
            mac.update(part.as_bytes());
            mac.update(&[0]);
        }
        mac
    }

    fn prove(&self, key: &str, speaker: &str) -> String {
        hex(&self.mac(key, speaker).finalize().into_bytes())
    }

    /// Constant-time check of `proof` (hmac's `verify_slice`).
    fn holds(&self, key: &str, speaker: &str, proof: &str) -> bool {
        unhex(proof).is_some_and(|bytes| self.mac(key, speaker).verify_slice(&bytes).is_ok())
    }
}

const HUB: &str = "hub";
const CLIENT: &str = "client";

/// The client's side: sends its nonce, checks the hub's proof, then proves itself.
#[derive(Debug, Clone)]
pub struct ClientProof {
    purpose: Purpose,
    port: u16,
    nonce: String,
}

impl ClientProof {
    /// A new attempt for `purpose` on `port` with fresh `random` bytes.
    pub fn new(purpose: Purpose, port: u16, random: [u8; NONCE_BYTES]) -> ClientProof {
        ClientProof {
            purpose,
            port,
            nonce: hex(&random),
        }
    }

    /// The nonce the client sends first.
    pub fn nonce(&self) -> &str {
        &self.nonce
    }

    /// Checks the hub's proof over its `hub_nonce` with each of `keys` in turn; the first that
    /// holds is the secret the hub knows. Returns its index and the client's proof, made with it.
    /// Nothing is proved to a hub that proved nothing.
    pub fn answer(
        &self,
        keys: &[&str],
        hub_nonce: &str,
        hub_proof: &str,
    ) -> Result<(usize, String), ProofError> {
        if !valid_nonce(hub_nonce) {
            return Err(ProofError::BadNonce);
        }
        if hub_nonce.eq_ignore_ascii_case(&self.nonce) {
            return Err(ProofError::Reflected);
        }
        let transcript = Transcript {
            purpose: self.purpose,
            port: self.port,
            client_nonce: self.nonce.clone(),
            hub_nonce: hub_nonce.to_owned(),
        };
        keys.iter()
            .position(|key| transcript.holds(key, HUB, hub_proof))
            .map(|at| (at, transcript.prove(keys[at], CLIENT)))
            .ok_or(ProofError::WrongProof)
    }
}

/// The hub's side: answers a client's nonce with its own and its proof, then checks the client's.
#[derive(Debug, Clone)]
pub struct HubProof {
    transcript: Transcript,
}

impl HubProof {
    /// Answers `client_nonce` for `purpose` on the hub's `port` with fresh `random` bytes:
    /// the state that checks the client's proof, and the hub's proof to send with the nonce.
    pub fn new(
        key: &str,
        purpose: Purpose,
        port: u16,
        client_nonce: &str,
        random: [u8; NONCE_BYTES],
    ) -> Result<(HubProof, String), ProofError> {
        if !valid_nonce(client_nonce) {
            return Err(ProofError::BadNonce);
        }
        let hub_nonce = hex(&random);
        if hub_nonce.eq_ignore_ascii_case(client_nonce) {
            return Err(ProofError::Reflected);
        }
        let transcript = Transcript {
            purpose,
            port,
            client_nonce: client_nonce.to_owned(),
            hub_nonce,
        };
        let proof = transcript.prove(key, HUB);
        Ok((HubProof { transcript }, proof))
    }

    /// The hub's nonce, sent with its proof.
    pub fn nonce(&self) -> &str {
        &self.transcript.hub_nonce
    }

    /// Checks the client's proof with `key` (constant time).
    pub fn check(&self, key: &str, client_proof: &str) -> Result<(), ProofError> {
        if self.transcript.holds(key, CLIENT, client_proof) {
            Ok(())
        } else {
            Err(ProofError::WrongProof)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "5f2b7c0e9a1d4e6f8a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f";
    const OTHER: &str = "0000000000000000000000000000000000000000000000000000000000000000";

    fn run(
        hub_key: &str,
        client_keys: &[&str],
        seed: u8,
    ) -> Result<(usize, Result<(), ProofError>), ProofError> {
        let client = ClientProof::new(Purpose::Tab, 54319, [seed; 32]);
        let (hub, hub_proof) = HubProof::new(
            hub_key,
            Purpose::Tab,
            54319,
            client.nonce(),
            [seed ^ 0xff; 32],
        )?;
        let (at, client_proof) = client.answer(client_keys, hub.nonce(), &hub_proof)?;
        Ok((at, hub.check(hub_key, &client_proof)))
    }

    #[test]
    fn both_sides_with_the_secret_prove_themselves() {
        assert_eq!(run(KEY, &[KEY], 1), Ok((0, Ok(()))));
        // The key that held is named: a candidate secret is kept only when the hub proves it.
        assert_eq!(run(KEY, &[OTHER, KEY], 1), Ok((1, Ok(()))));
    }

    #[test]
    fn a_wrong_key_fails_both_ways() {
        // A hub without the client's secret: the client refuses it and proves nothing.
        assert_eq!(run(OTHER, &[KEY], 2), Err(ProofError::WrongProof));
        // A client without the hub's secret: its proof does not hold.
        let client = ClientProof::new(Purpose::Peer, 1, [3; 32]);
        let (hub, _) = HubProof::new(KEY, Purpose::Peer, 1, client.nonce(), [4; 32]).unwrap();
        let forged = Transcript {
            purpose: Purpose::Peer,
            port: 1,
            client_nonce: client.nonce().into(),
            hub_nonce: hub.nonce().into(),
        }
        .prove(OTHER, CLIENT);
        assert_eq!(hub.check(KEY, &forged), Err(ProofError::WrongProof));
        assert_eq!(hub.check(KEY, ""), Err(ProofError::WrongProof));
        assert_eq!(hub.check(KEY, "zz"), Err(ProofError::WrongProof));
    }

    #[test]
    fn a_replayed_proof_fails_against_fresh_nonces() {
        // A recorded exchange: the hub's proof for one client nonce.
        let first = ClientProof::new(Purpose::Tab, 9, [5; 32]);
        let (hub, hub_proof) = HubProof::new(KEY, Purpose::Tab, 9, first.nonce(), [6; 32]).unwrap();
        let (_, client_proof) = first.answer(&[KEY], hub.nonce(), &hub_proof).unwrap();
        // Replayed to a new client (new nonce): refused.
        let second = ClientProof::new(Purpose::Tab, 9, [7; 32]);
        assert_eq!(
            second.answer(&[KEY], hub.nonce(), &hub_proof),
            Err(ProofError::WrongProof)
        );
        // The client's proof replayed to a new hub session (new hub nonce): refused.
        let (again, _) = HubProof::new(KEY, Purpose::Tab, 9, first.nonce(), [8; 32]).unwrap();
        assert_eq!(again.check(KEY, &client_proof), Err(ProofError::WrongProof));
    }

    #[test]
    fn a_reflected_challenge_fails() {
        let client = ClientProof::new(Purpose::Chat, 7, [9; 32]);
        // The squatter sends the client's own nonce back as its own.
        assert_eq!(
            client.answer(&[KEY], client.nonce(), &"00".repeat(32)),
            Err(ProofError::Reflected)
        );
        // The hub refuses to answer a nonce equal to the one it would send.
        assert_eq!(
            HubProof::new(KEY, Purpose::Chat, 7, &hex(&[1; 32]), [1; 32]).err(),
            Some(ProofError::Reflected)
        );
        // A client's proof is never a hub's proof over the same nonces (speaker label), so a
        // client's answer relayed back to another client proves nothing.
        let (hub, _) = HubProof::new(KEY, Purpose::Chat, 7, client.nonce(), [10; 32]).unwrap();
        let t = &hub.transcript;
        let client_proof = t.prove(KEY, CLIENT);
        assert_eq!(
            client.answer(&[KEY], hub.nonce(), &client_proof),
            Err(ProofError::WrongProof)
        );
    }

    #[test]
    fn another_purpose_or_port_does_not_hold() {
        let client = ClientProof::new(Purpose::Tab, 54319, [11; 32]);
        for (purpose, port) in [(Purpose::Chat, 54319), (Purpose::Tab, 54320)] {
            let (hub, proof) = HubProof::new(KEY, purpose, port, client.nonce(), [12; 32]).unwrap();
            assert_eq!(
                client.answer(&[KEY], hub.nonce(), &proof),
                Err(ProofError::WrongProof),
                "{purpose:?} on {port}"
            );
        }
    }

    #[test]
    fn bad_nonces_are_refused() {
        let client = ClientProof::new(Purpose::Tab, 1, [13; 32]);
        for nonce in ["", "abc", &"g".repeat(64), &"a".repeat(66)] {
            assert_eq!(client.answer(&[KEY], nonce, ""), Err(ProofError::BadNonce));
            assert_eq!(
                HubProof::new(KEY, Purpose::Tab, 1, nonce, [0; 32]).err(),
                Some(ProofError::BadNonce)
            );
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn only_the_same_key_proves(
            hub_key in "[0-9a-f]{64}",
            client_key in "[0-9a-f]{64}",
            client_random in any::<[u8; 32]>(),
            hub_random in any::<[u8; 32]>(),
            port in any::<u16>(),
        ) {
            prop_assume!(client_random != hub_random);
            let client = ClientProof::new(Purpose::Peer, port, client_random);
            let (hub, hub_proof) =
                HubProof::new(&hub_key, Purpose::Peer, port, client.nonce(), hub_random).unwrap();
            let answered = client.answer(&[&client_key], hub.nonce(), &hub_proof);
            if hub_key == client_key {
                let (_, proof) = answered.unwrap();
                prop_assert_eq!(hub.check(&hub_key, &proof), Ok(()));
            } else {
                prop_assert_eq!(answered, Err(ProofError::WrongProof));
            }
        }

        #[test]
        fn any_changed_digit_of_a_proof_fails(
            at in 0usize..64,
            digit in "[0-9a-f]",
            random in any::<[u8; 32]>(),
        ) {
            let client = ClientProof::new(Purpose::Monitor, 5, random);
            let mut hub_random = random;
            hub_random[0] ^= 1;
            let (hub, proof) =
                HubProof::new("k", Purpose::Monitor, 5, client.nonce(), hub_random).unwrap();
            let mut changed = proof.clone();
            changed.replace_range(at..at + 1, &digit);
            prop_assume!(changed != proof);
            prop_assert_eq!(
                client.answer(&["k"], hub.nonce(), &changed),
                Err(ProofError::WrongProof)
            );
            let (_, answer) = client.answer(&["k"], hub.nonce(), &proof).unwrap();
            let mut changed = answer.clone();
            changed.replace_range(at..at + 1, &digit);
            prop_assume!(changed != answer);
            prop_assert_eq!(hub.check("k", &changed), Err(ProofError::WrongProof));
        }
    }
}
