//! A computed run that can be seen at any step (docs/architecture.md, rule 7): the trace,
//! the store after every engine event (persistent maps, so each is a cheap
//! clone), and engine checkpoints to continue from any point when a new
//! command arrives. Seeking is a binary search; no replay is needed to look.

use crate::clock::SimTime;
use std::collections::VecDeque;

use crate::engine::{Engine, IDLE_LIMIT, Input, Until};
use crate::kubectl::Command;
use crate::store::{Archive, Archived, Snapshot, Store, StoreDelta};
use crate::trace::{Actor, Record, TraceRecord};

/// A checkpoint (a copy of the engine, to replay from when a command is
/// typed at an earlier step) is taken once this many writes have followed
/// the latest, and dropped, but for the start, once twice as many have.
/// A checkpoint holds every object version current when it was taken (the
/// steps keep a replaced version encoded, a checkpoint cannot), and its
/// components are shared with the engine until either changes them: it
/// costs what has changed since. So a run keeps the start and one or two
/// checkpoints among its last 512 writes; a command typed there replays a
/// few hundred writes' worth of events, one typed further back replays
/// from the start (the 10,000-replica run: 4 s at most).
const CHECKPOINT_WRITES: u64 = if cfg!(test) { 8 } else { 256 };

/// A mark keeps the store whole once this many keys have changed since the
/// last whole one (or [`WHOLE_AFTER_MARKS`] marks have passed); the marks
/// between keep what changed since the mark before. A whole store of a large
/// run costs a copied path of map nodes per write since the last (kilobytes
/// each), its changes a few entries; a view rebuilds its store from at most
/// this many changes. Tests space them closer, to have many in a short run.
const WHOLE_AFTER_CHANGES: usize = if cfg!(test) { 8 } else { 128 };
/// At most this many marks apart, whatever changed.
const WHOLE_AFTER_MARKS: usize = if cfg!(test) { 32 } else { 1024 };

/// The state after one engine event that produced records.
#[derive(Debug, Clone)]
struct Mark {
    /// Index of the event's first record.
    first: usize,
    store: Kept,
    now: SimTime,
}

/// How a mark keeps its store.
#[derive(Debug, Clone)]
enum Kept {
    /// Boxed: most marks keep changes, and a mark is as large as its largest kind.
    Whole(Box<Snapshot>),
    /// The changes since the mark before.
    Changes(StoreDelta<Archived>),
}

/// The whole run, inspectable at any record.
#[derive(Clone)]
pub struct Timeline {
    records: Vec<TraceRecord>,
    marks: Vec<Mark>,
    /// The store of the newest mark (what the next mark's changes are
    /// from), the versions it replaced kept encoded.
    archive: Archive,
    /// (keys changed, marks) since the newest whole store.
    since_whole: (usize, usize),
    /// (number of marks when taken, the engine then): the start, then one
    /// or two among the last writes ([`CHECKPOINT_WRITES`]).
    checkpoints: Vec<(usize, Engine)>,
    /// Where the run being computed stops.
    until: Until,
    /// Whether it has stopped there.
    complete: bool,
    /// Whether it was stopped before it got there ([`Timeline::cut_short`]).
    cut_short: bool,
    /// The engine at the end of the run (computed so far).
    engine: Engine,
    /// The commands handed over after the start: (number of marks when
    /// submitted, the command), so that a replay from an older checkpoint
    /// hands them over again at the same point.
    submitted: Vec<(usize, Command)>,
    /// A replayed session's inputs not handed over yet, each at its moment
    /// ([`Timeline::schedule`]); nobody waits for their answers.
    scheduled: VecDeque<(SimTime, Input)>,
    /// An observed run (`podflow attach`): its records and stores are
    /// pushed ([`Timeline::push_observed`]); no engine computes them.
    observed: bool,
}

/// The cluster as it stands at one record.
#[derive(Debug, Clone)]
pub struct View<'a> {
    /// Every record up to and including the current one.
    pub records: &'a [TraceRecord],
    /// The records after the current one that the same engine event made
    /// (an event is computed whole, so these exist whenever it does): where
    /// the request being handled is heading, such as the key it will write.
    pub later_in_event: &'a [TraceRecord],
    /// The store after the current record's event.
    pub store: Snapshot,
    /// Simulated time at the current record.
    pub now: SimTime,
    /// The run was computed to its end without a single record: nothing
    /// was asked of the cluster (`podflow play` without a manifest).
    pub idle_run: bool,
}

impl View<'_> {
    /// The current record.
    pub fn current(&self) -> Option<&TraceRecord> {
        self.records.last()
    }
}

impl Timeline {
    /// Runs `engine` until idle and keeps everything needed to look back.
    pub fn new(engine: Engine) -> Timeline {
        let mut timeline = Timeline::started(engine);
        timeline.finish();
        timeline
    }

    /// The run of `engine`, not computed yet: [`Timeline::advance`] computes
    /// it a slice at a time (the TUI does, between frames, so that a large run
    /// shows its first steps at once).
    pub fn started(engine: Engine) -> Timeline {
        let archive = Archive::new(engine.store());
        let start = Mark {
            first: 0,
            store: Kept::Whole(Box::new(archive.snapshot().clone())),
            now: engine.now(),
        };
        Timeline {
            records: Vec::new(),
            marks: vec![start],
            archive,
            since_whole: (0, 0),
            checkpoints: vec![(1, engine.clone())],
            until: Timeline::until_from(&engine),
            complete: false,
            cut_short: false,
            engine,
            submitted: Vec::new(),
            scheduled: VecDeque::new(),
            observed: false,
        }
    }

    /// An observed run, empty: what `podflow attach` sees of a real cluster
    /// is pushed into it ([`Timeline::push_observed`]). It starts from an
    /// empty store and is complete whenever looked at; it has no engine to
    /// hand commands to (its engine, the default cluster's, never runs).
    pub fn observed() -> Timeline {
        let setup = crate::setup::build_setup(&crate::setup::SetupArgs::default())
            .expect("the built-in default cluster builds");
        let mut timeline = Timeline::started(Engine::new(setup));
        timeline.marks[0].store = Kept::Whole(Box::default());
        timeline.marks[0].now = SimTime(0);
        timeline.archive = Archive::new(&Store::default());
        timeline.observed = true;
        timeline.complete = true;
        timeline
    }

    /// Whether it is an observed run ([`Timeline::observed`]).
    pub fn is_observed(&self) -> bool {
        self.observed
    }

    /// Appends what was observed at `now`: `records`, and `store`, the
    /// objects as they stand after them (one mark; a view of any of the
    /// records shows this store).
    pub fn push_observed(&mut self, records: Vec<TraceRecord>, store: &Store, now: SimTime) {
        if records.is_empty() {
            return;
        }
        let first = self.records.len();
        self.records.extend(records);
        let kept = self.keep(store);
        self.marks.push(Mark {
            first,
            store: kept,
            now,
        });
    }

    /// Hands the engine `inputs` (a saved session's, in order) each at its
    /// moment, as a served cluster received them: after every event up to
    /// that moment, background work included. The run goes on to idle after
    /// the last.
    pub fn schedule(&mut self, inputs: impl IntoIterator<Item = (SimTime, Input)>) {
        self.scheduled.extend(inputs);
        if let Some((last, _)) = self.scheduled.back() {
            self.until = Until::IdleOr(last.plus(IDLE_LIMIT.as_millis()));
            self.resume();
        }
    }

    /// The next engine event's records: the scheduled inputs first handed
    /// over when their moment has come. `None` when the run is over.
    fn next_step(&mut self) -> Option<Vec<TraceRecord>> {
        while let Some((at, _)) = self.scheduled.front() {
            let at = *at;
            if self.engine.next_event_time().is_some_and(|next| next <= at) {
                let records = self.engine.step_within(Until::Time(at));
                // A replay's answers have no one to go to.
                self.engine.take_answers();
                return records;
            }
            let Some((_, input)) = self.scheduled.pop_front() else {
                break;
            };
            self.engine.idle_until(at);
            match input {
                Input::Request(request) => {
                    self.engine.receive(*request);
                }
                Input::StopWatch(stream) => self.engine.stop_watch(stream),
            }
        }
        self.engine.step_within(self.until)
    }

    /// Where a run from `engine`'s present stops: idle, or 30 more simulated minutes.
    fn until_from(engine: &Engine) -> Until {
        Until::IdleOr(engine.now().plus(IDLE_LIMIT.as_millis()))
    }

    /// Whether the run has been computed to its end (or cut short there).
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    /// Stops computing the run where it is, before its end: it then reads
    /// as complete, and as cut short. The screen does this when the run
    /// would take more memory than the machine has (`src/memory.rs`).
    pub fn cut_short(&mut self) {
        if !self.complete {
            self.complete = true;
            self.cut_short = true;
        }
    }

    /// Whether the run was cut short before its end.
    pub fn is_cut_short(&self) -> bool {
        self.cut_short
    }

    /// The run goes on from where it is: computed further on demand.
    fn resume(&mut self) {
        self.complete = false;
        self.cut_short = false;
    }

    /// Computes up to `events` more engine events, marking each that made
    /// records; returns whether the run is now complete (a complete run,
    /// cut short or not, computes nothing more until it is resumed).
    pub fn advance(&mut self, events: usize) -> bool {
        if self.observed || self.complete {
            return true;
        }
        for _ in 0..events {
            let Some(records) = self.next_step() else {
                self.complete = true;
                break;
            };
            if records.is_empty() {
                continue;
            }
            let first = self.records.len();
            self.grow_records(records.len());
            self.records.extend(records);
            let kept = self.keep(&self.engine.store().clone());
            self.marks.push(Mark {
                first,
                store: kept,
                now: self.engine.now(),
            });
            self.checkpoint();
        }
        self.complete
    }

    /// Makes room for `more` records, growing by a quarter rather than
    /// doubling: a run of a million records would otherwise hold room for
    /// up to a million more (over 100 MB) that it never fills.
    fn grow_records(&mut self, more: usize) {
        let free = self.records.capacity() - self.records.len();
        if free < more {
            let by = more.max(self.records.len() / 4).max(1024);
            self.records.reserve_exact(by);
        }
    }

    /// How the next mark keeps `store`: whole, when enough changed since the
    /// last whole one; otherwise its changes since the newest mark.
    fn keep(&mut self, store: &Store) -> Kept {
        let delta = self.archive.push(store);
        let (changes, marks) = &mut self.since_whole;
        *changes += delta.len();
        *marks += 1;
        if *changes >= WHOLE_AFTER_CHANGES || *marks >= WHOLE_AFTER_MARKS {
            self.since_whole = (0, 0);
            Kept::Whole(Box::new(self.archive.snapshot().clone()))
        } else {
            Kept::Changes(delta)
        }
    }

    /// The engine at the end of what is computed so far.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// A live run (`podflow serve` with its TUI): the run goes on to `until`
    /// from now on, so [`Timeline::advance`] computes up to there.
    pub fn extend_to(&mut self, until: Until) {
        self.until = until;
        self.resume();
    }

    /// A request from a client outside the simulation, for the engine at
    /// the end of the run ([`Engine::receive`]). A live run is never
    /// recomputed from a checkpoint, so it is not kept for a replay.
    pub fn receive(
        &mut self,
        request: crate::apiserver::request::Request,
    ) -> crate::component::RequestId {
        self.resume();
        self.engine.receive(request)
    }

    /// What reached outside clients ([`Engine::take_answers`]).
    pub fn take_answers(&mut self) -> Vec<crate::engine::Answer> {
        self.engine.take_answers()
    }

    /// Lets the live run's time pass to `t` ([`Engine::idle_until`]).
    pub fn idle_until(&mut self, t: SimTime) {
        self.engine.idle_until(t);
    }

    /// Ends an outside client's watch ([`Engine::stop_watch`]).
    pub fn stop_watch(&mut self, stream: crate::component::RequestId) {
        self.engine.stop_watch(stream);
    }

    /// Computes the rest of the run.
    pub fn finish(&mut self) {
        self.advance(usize::MAX);
    }

    /// Copies the engine once [`CHECKPOINT_WRITES`] writes have followed the
    /// latest copy, and drops the copies (but the start) twice as far behind.
    fn checkpoint(&mut self) {
        let now = self.engine.store().revision();
        let behind = |engine: &Engine| now.saturating_sub(engine.store().revision());
        self.checkpoints
            .retain(|(n, engine)| *n == 1 || behind(engine) <= 2 * CHECKPOINT_WRITES);
        let latest = self.checkpoints.last().map(|(_, engine)| behind(engine));
        if latest.is_none_or(|writes| writes >= CHECKPOINT_WRITES) {
            self.checkpoints
                .push((self.marks.len(), self.engine.clone()));
        }
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether the run produced no record at all.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Every record.
    pub fn records(&self) -> &[TraceRecord] {
        &self.records
    }

    /// The index of the mark that holds record `index`.
    fn mark_of(&self, index: usize) -> usize {
        // marks[0] is the start (before any record); marks[1..] each start at `first`.
        self.marks[1..].partition_point(|m| m.first <= index)
    }

    /// The records of the engine event that made record `index` (clamped):
    /// what happened at once, as one component's handling of one input.
    pub fn event_range(&self, index: usize) -> std::ops::Range<usize> {
        if self.records.is_empty() {
            return 0..0;
        }
        let at = self.mark_of(index.min(self.records.len() - 1));
        let end = self
            .marks
            .get(at + 1)
            .map_or(self.records.len(), |m| m.first);
        self.marks[at].first..end
    }

    /// The cluster at record `index` (clamped); before any record for an empty run.
    pub fn view(&self, index: usize) -> View<'_> {
        if self.records.is_empty() {
            return self.start();
        }
        let index = index.min(self.records.len() - 1);
        let at = self.mark_of(index);
        // Within one event, the store changes at its etcd record: before it,
        // the view shows the store as the event found it.
        let event = self.event_range(index);
        let written = self.records[event.start..=index]
            .iter()
            .any(|r| matches!(&r.body, Record::Stage(s) if s.component == Actor::Etcd));
        let mark = if written || self.observed { at } else { at - 1 };
        View {
            records: &self.records[..=index],
            later_in_event: &self.records[index + 1..event.end],
            store: self.store_at(mark),
            now: self.now_at(index),
            idle_run: false,
        }
    }

    /// The store after mark `at`: the nearest whole one at or before it, with
    /// the changes of the marks since.
    fn store_at(&self, at: usize) -> Snapshot {
        let whole = (0..=at).rev().find_map(|m| match &self.marks[m].store {
            Kept::Whole(store) => Some((m, store.as_ref())),
            Kept::Changes(_) => None,
        });
        let Some((from, whole)) = whole else {
            return Snapshot::default();
        };
        let mut store = whole.clone();
        for mark in &self.marks[from + 1..=at] {
            if let Kept::Changes(delta) = &mark.store {
                store.apply_delta(delta);
            }
        }
        store
    }

    /// (keys changed, marks) from the last whole store up to mark `at`.
    fn since_whole_at(&self, at: usize) -> (usize, usize) {
        let mut since = (0, 0);
        for mark in self.marks[..=at].iter().rev() {
            match &mark.store {
                Kept::Whole(_) => break,
                Kept::Changes(delta) => since = (since.0 + delta.len(), since.1 + 1),
            }
        }
        since
    }

    /// The simulated time at record `index` (clamped); the start's before
    /// any record. What [`Timeline::view`] says, without rebuilding its store.
    pub fn now_at(&self, index: usize) -> SimTime {
        let last = self.records.len().checked_sub(1);
        last.map_or(self.marks[0].now, |last| {
            SimTime(self.records[index.min(last)].t_ms)
        })
    }

    /// The cluster before the first record.
    pub fn start(&self) -> View<'_> {
        View {
            records: &[],
            later_in_event: &[],
            store: self.store_at(0),
            now: self.marks[0].now,
            idle_run: self.complete && self.records.is_empty(),
        }
    }

    /// Hands kubectl `command` as if typed after record `index`: the run from
    /// there on is recomputed (the old future is dropped). Returns the index of
    /// the first new record.
    pub fn submit_at(&mut self, index: Option<usize>, command: Command) -> usize {
        let first_new = self.resubmit(index, command);
        self.finish();
        first_new
    }

    /// [`Timeline::submit_at`] without computing the new future:
    /// [`Timeline::advance`] computes it (the TUI does, between frames).
    pub fn resubmit(&mut self, index: Option<usize>, command: Command) -> usize {
        // The marks to keep: everything up to the event of `index`.
        let keep = match index {
            Some(i) if !self.records.is_empty() => self.mark_of(i.min(self.records.len() - 1)) + 1,
            _ => 1,
        };
        let (taken, mut engine) = self
            .checkpoints
            .iter()
            .rev()
            .find(|(n, _)| *n <= keep)
            .map_or_else(
                || (1, self.checkpoints[0].1.clone()),
                |(n, e)| (*n, e.clone()),
            );
        // Replay from the checkpoint to the kept event, handing over the
        // earlier commands where they were handed over (a checkpoint is never
        // taken between a command and the run after it).
        self.submitted.retain(|(at, _)| *at < keep);
        let mut replayed = taken;
        let mut handed = None;
        loop {
            if handed != Some(replayed) {
                handed = Some(replayed);
                for (_, earlier) in self.submitted.iter().filter(|(at, _)| *at == replayed) {
                    engine.submit(earlier.clone());
                }
            }
            if replayed >= keep {
                break;
            }
            if !engine.step().is_empty() {
                replayed += 1;
            }
        }
        let kept_records = self.marks.get(keep).map_or(self.records.len(), |m| m.first);
        self.records.truncate(kept_records);
        self.marks.truncate(keep);
        self.archive
            .reset(engine.store().clone(), self.store_at(keep - 1));
        self.since_whole = self.since_whole_at(keep - 1);
        self.checkpoints.retain(|(n, _)| *n <= keep);
        self.submitted.push((keep, command.clone()));
        engine.submit(command);
        self.until = Timeline::until_from(&engine);
        self.resume();
        self.engine = engine;
        kept_records
    }
}

#[cfg(test)]
mod tests {
    use super::{CHECKPOINT_WRITES, Kept, Timeline};
    use crate::engine::Until;
    use crate::store::{Held, Snapshot, Store};
    use crate::testing::{engine, find, fixture, nginx_timeline, timeline};

    /// A story's steps: the fixture `file` created, then `then` once the
    /// run is idle, and the run to idle again.
    fn story(file: &str, then: &str) -> [String; 4] {
        [
            format!("create -f {}", fixture(file)),
            "wait idle".into(),
            then.into(),
            "wait idle".into(),
        ]
    }

    /// The keys, revisions, objects (as JSON) and watch histories of a
    /// step's snapshot and the engine's store agree.
    fn same_store(a: &Snapshot, b: &Store) -> bool {
        fn history<O: Held>(s: &Store<O>) -> Vec<(u64, String)> {
            s.changes_since(s.compacted())
                .map(|changes| changes.map(|c| (c.revision, c.key.clone())).collect())
                .unwrap_or_default()
        }
        let entries_agree = a.len() == b.len()
            && a.iter().zip(b.iter()).all(|((ka, ea), (kb, eb))| {
                ka == kb
                    && (ea.create_revision, ea.mod_revision, ea.version)
                        == (eb.create_revision, eb.mod_revision, eb.version)
                    && ea.object.load().to_json() == eb.object.to_json()
            });
        a.revision() == b.revision()
            && a.compacted() == b.compacted()
            && entries_agree
            && history(a) == history(b)
    }

    /// Every version a step shows, current or replaced since, is the object
    /// the engine stored then: replaced versions come back from their JSON.
    #[test]
    fn replaced_versions_come_back_as_they_were_stored() {
        let t = nginx_timeline();
        let retired = (0..t.marks.len())
            .map(|at| t.store_at(at))
            .flat_map(|s| s.iter().map(|(_, e)| e.object.clone()).collect::<Vec<_>>())
            .filter(crate::store::Archived::is_retired)
            .count();
        assert!(retired > 10, "{retired} replaced versions");
    }

    /// An observed run (`podflow attach`): each pushed batch is one mark,
    /// its records see its store, time is what was pushed, and nothing is
    /// computed.
    #[test]
    fn an_observed_run_shows_each_pushed_store_at_its_records() {
        use crate::clock::SimTime;
        use crate::trace::{Actor, Record, TraceRecord};
        use podflow_model::Object;
        use std::sync::Arc;
        let pod = |rv: &str| -> Arc<Object> {
            let value = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "nginx", "namespace": "default", "resourceVersion": rv}});
            Arc::new(Object::from_json(podflow_model::kinds::kind_of("Pod"), value).unwrap())
        };
        let record = |seq: u64, t_ms: u64| TraceRecord {
            seq,
            t_ms,
            body: Record::message(
                Actor::Kubectl,
                Actor::ApiServer,
                "Update pods/default/nginx",
            ),
        };
        let key = "/registry/pods/default/nginx";
        let mut observed = Timeline::observed();
        assert!(observed.is_observed() && observed.is_complete());
        assert!(
            observed.start().store.is_empty(),
            "it starts with nothing seen"
        );
        let mut store = Store::default();
        store.put_observed(key, pod("812"));
        observed.push_observed(vec![record(0, 5), record(1, 5)], &store, SimTime(5));
        store.put_observed(key, pod("815"));
        observed.push_observed(vec![record(2, 40)], &store, SimTime(40));
        observed.push_observed(Vec::new(), &Store::default(), SimTime(50));
        assert!(observed.advance(100));
        assert_eq!(observed.len(), 3);
        let rv = |i: usize| observed.view(i).store.get(key).map(|e| e.mod_revision);
        assert_eq!((rv(0), rv(1), rv(2)), (Some(812), Some(812), Some(815)));
        assert_eq!(observed.view(2).now, SimTime(40));
        assert_eq!(observed.event_range(1), 0..2);
    }

    #[test]
    fn stores_rebuilt_from_changes_are_the_stores_of_their_moment() {
        // The engine's own store after each event that made records.
        let steps = story("job.yaml", "delete pod nginx");
        let steps = steps.each_ref().map(String::as_str);
        let mut engine = engine(&steps, None);
        let mut stores = vec![engine.store().clone()];
        while let Some(records) = engine.step_within(Until::Idle) {
            if !records.is_empty() {
                stores.push(engine.store().clone());
            }
        }
        let t = timeline(&steps, None);
        assert_eq!(t.marks.len(), stores.len());
        let wholes = t
            .marks
            .iter()
            .filter(|m| matches!(m.store, Kept::Whole(_)))
            .count();
        assert!(
            wholes > 3,
            "{wholes} whole stores in {} marks",
            stores.len()
        );
        for (at, store) in stores.iter().enumerate() {
            assert!(same_store(&t.store_at(at), store), "mark {at}");
        }
    }

    /// Every mark's snapshot has the engine's revisions of every key, in a
    /// run of many Pods (the changes are the history's, not a diff's).
    #[test]
    fn every_marks_snapshot_has_the_engines_revisions() {
        use crate::store::Archive;
        let steps = story("web-service.yaml", "scale deployment web --replicas=120");
        let steps = steps.each_ref().map(String::as_str);
        let mut engine = engine(&steps, None);
        let mut archive = Archive::new(engine.store());
        while let Some(records) = engine.step_within(Until::Idle) {
            if records.is_empty() {
                continue;
            }
            archive.push(engine.store());
            let snapshot = archive.snapshot();
            assert_eq!(snapshot.len(), engine.store().len());
            for (key, entry) in engine.store().iter() {
                let kept = snapshot.get(key).map(|e| e.mod_revision);
                assert_eq!(kept, Some(entry.mod_revision), "{key}");
            }
        }
    }

    #[test]
    fn every_record_has_the_store_of_its_moment() {
        let t = nginx_timeline();
        let created = find(&t, "etcd persist → ok: wrote /registry/pods/default/nginx");
        assert!(
            t.view(created - 1)
                .store
                .get("/registry/pods/default/nginx")
                .is_none()
        );
        let view = t.view(created);
        let entry = view
            .store
            .get("/registry/pods/default/nginx")
            .expect("the Pod is stored");
        assert!(
            entry
                .object
                .load()
                .as_pod()
                .and_then(|p| p.spec.as_ref())
                .and_then(|s| s.node_name.as_ref())
                .is_none()
        );
        let end = t.view(t.len() - 1);
        let last = end
            .store
            .get("/registry/pods/default/nginx")
            .expect("still stored");
        assert!(
            last.object
                .load()
                .as_pod()
                .and_then(|p| p.spec.as_ref())
                .and_then(|s| s.node_name.as_ref())
                .is_some()
        );
        assert_eq!(
            t.view(usize::MAX).records.len(),
            t.len(),
            "seeking past the end stops at the last record"
        );
    }

    #[test]
    fn a_command_after_a_step_replaces_the_future_and_is_deterministic() {
        let mut t = nginx_timeline();
        let before = t.records().to_vec();
        let at = find(&t, "kubectl | pod/nginx created");
        let parsed = crate::command::parse("delete pod nginx").unwrap();
        let command = crate::command::resolve(parsed, |_| Ok::<_, ()>(Vec::new())).unwrap();
        let first_new = t.submit_at(Some(at), command.clone());
        assert_eq!(
            &t.records()[..first_new],
            &before[..first_new],
            "the past stays as it was"
        );
        assert!(t.records().iter().any(|r| {
            crate::export::text::line(r).contains("DELETE /api/v1/namespaces/default/pods/nginx")
        }));
        // The same command at the same point gives the same future.
        let mut again = nginx_timeline();
        again.submit_at(Some(at), command);
        assert_eq!(again.records(), t.records());
        let _ = timeline(&[], None);
    }

    #[test]
    fn a_run_computed_in_slices_is_the_run_computed_at_once() {
        let whole = nginx_timeline();
        let mut sliced = Timeline::started(crate::testing::nginx_engine());
        assert!(sliced.is_empty() && !sliced.is_complete());
        let mut rounds = 0;
        while !sliced.advance(3) {
            rounds += 1;
            // What is computed so far is already seen as it will stay.
            let seen = sliced.len();
            assert_eq!(sliced.records(), &whole.records()[..seen]);
            if seen > 0 {
                assert_eq!(
                    sliced.view(seen - 1).store.revision(),
                    whole.view(seen - 1).store.revision()
                );
            }
        }
        assert!(rounds > 5, "computed in {rounds} slices");
        assert_eq!(sliced.records(), whole.records());
        assert!(sliced.is_complete() && sliced.advance(1), "stays complete");
    }

    #[test]
    fn a_run_cut_short_stops_there_until_a_command_goes_on_from_it() {
        let mut cut = Timeline::started(crate::testing::nginx_engine());
        assert!(!cut.advance(3), "the run goes on past three events");
        let at = cut.len();
        assert!(at > 0);
        cut.cut_short();
        assert!(cut.is_complete() && cut.is_cut_short());
        assert!(cut.advance(100), "no more is computed");
        assert_eq!(cut.len(), at);
        // A command typed there runs on from it, to the run's end.
        let parsed = crate::command::parse("get pods").unwrap();
        let command = crate::command::resolve(parsed, |_| Ok::<_, ()>(Vec::new())).unwrap();
        cut.resubmit(Some(at - 1), command);
        assert!(!cut.is_complete() && !cut.is_cut_short());
        while !cut.advance(1_000) {}
        assert!(cut.len() > at && !cut.is_cut_short());
        // A whole run is not cut short.
        let mut whole = nginx_timeline();
        whole.cut_short();
        assert!(!whole.is_cut_short());
    }

    /// A checkpoint pins the versions current when it was taken: one is
    /// taken every [`CHECKPOINT_WRITES`] writes and goes twice as far
    /// behind, and a command typed before the oldest left replays from the
    /// start, to the same future.
    #[test]
    fn checkpoints_follow_the_writes_and_a_replay_starts_further_back() {
        let steps = story("web-service.yaml", "scale deployment web --replicas=6");
        let steps = steps.each_ref().map(String::as_str);
        let run = || timeline(&steps, None);
        let mut t = run();
        let end = t.engine().store().revision();
        assert!(end > 4 * CHECKPOINT_WRITES, "a run of {end} writes");
        let kept: Vec<(usize, u64)> = t
            .checkpoints
            .iter()
            .map(|(n, e)| (*n, e.store().revision()))
            .collect();
        assert_eq!(kept[0].0, 1, "the start stays");
        assert!((2..=3).contains(&kept.len()), "{kept:?} at {end}");
        assert!(
            kept[1..]
                .iter()
                .all(|(_, rev)| end - rev <= 2 * CHECKPOINT_WRITES),
            "{kept:?} at {end}"
        );
        assert!(
            kept.windows(2)
                .all(|w| w[1].1 - w[0].1 >= CHECKPOINT_WRITES),
            "{kept:?}"
        );
        let early = t.len() / 4;
        assert!(
            t.mark_of(early) < kept[1].0,
            "typed before the checkpoints kept"
        );
        let parsed = crate::command::parse("cordon node-1").unwrap();
        let command = crate::command::resolve(parsed, |_| Ok::<_, ()>(Vec::new())).unwrap();
        let first_new = t.submit_at(Some(early), command.clone());
        let mut all_kept = run();
        all_kept.checkpoints.truncate(1);
        assert_eq!(all_kept.submit_at(Some(early), command), first_new);
        assert_eq!(all_kept.records(), t.records());
    }

    #[test]
    fn a_second_command_keeps_the_first() {
        let resolve = |line: &str| {
            crate::command::resolve(crate::command::parse(line).unwrap(), |_| {
                Ok::<_, ()>(Vec::new())
            })
            .unwrap()
        };
        let mut t = nginx_timeline();
        let end = t.len() - 1;
        t.submit_at(Some(end), resolve("cordon node-1"));
        let end = t.len() - 1;
        t.submit_at(Some(end), resolve("cordon node-2"));
        let text: Vec<String> = t.records().iter().map(crate::export::text::line).collect();
        assert!(
            text.iter().any(|l| l.contains("node/node-1 cordoned")),
            "the first command stays"
        );
        assert!(text.iter().any(|l| l.contains("node/node-2 cordoned")));
    }
}
