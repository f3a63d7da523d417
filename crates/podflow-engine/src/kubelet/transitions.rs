//! When each condition the kubelet owns last changed: the status manager
//! keeps a condition's `lastTransitionTime` while its status stays the same
//! and stamps the present time when it flips (`pkg/kubelet/status/status_manager.go`,
//! `updateLastTransitionTime`). A Pod has at most the kubelet's four
//! conditions, so a short list serves where a map would hold a node and a
//! key string for each (about 1 KB a Pod at the envelope's 150,000).

use crate::clock::SimTime;

/// Each kubelet-owned condition's last status and when it took it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Transitions(Vec<(&'static str, bool, SimTime)>);

impl Transitions {
    /// When the condition of type `kind` took its present status, if it was seen.
    pub fn at(&self, kind: &str) -> Option<SimTime> {
        self.0.iter().find(|(k, ..)| *k == kind).map(|(.., at)| *at)
    }

    /// The condition of type `kind` is `ok` at `now`: when it took that
    /// status (`now` if it is new or just flipped).
    pub fn observe(&mut self, kind: &'static str, ok: bool, now: SimTime) -> SimTime {
        let Some((_, was, at)) = self.0.iter_mut().find(|(k, ..)| *k == kind) else {
            self.0.push((kind, ok, now));
            return now;
        };
        if *was != ok {
            (*was, *at) = (ok, now);
        }
        *at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_moves_only_when_the_status_flips() {
        let mut seen = Transitions::default();
        assert_eq!(seen.at("Ready"), None);
        assert_eq!(seen.observe("Ready", false, SimTime(1_000)), SimTime(1_000));
        assert_eq!(seen.observe("Ready", false, SimTime(2_000)), SimTime(1_000));
        assert_eq!(
            seen.observe("Initialized", true, SimTime(2_000)),
            SimTime(2_000)
        );
        assert_eq!(seen.observe("Ready", true, SimTime(3_000)), SimTime(3_000));
        assert_eq!(seen.at("Ready"), Some(SimTime(3_000)));
        assert_eq!(seen.at("Initialized"), Some(SimTime(2_000)));
    }
}
