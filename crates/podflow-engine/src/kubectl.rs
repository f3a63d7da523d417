//! kubectl as a client of the API server: runs the cluster-language commands
//! one after another, each waiting for the answer to the one before. `apply`
//! is client-side apply (`staging/src/k8s.io/kubectl/pkg/cmd/apply/apply.go`):
//! a GET, then a create, or a patch carrying the last-applied configuration.
//! What `get` prints is in [`get_output`]; `label` and `annotate` plan their
//! patch in [`label_plan`]; `rollout` and `set image` in [`rollout`]; the
//! requests of `logs`, `label`, `set image` and `rollout` are in [`verbs`],
//! those of `describe` in [`describe`], of `auth` in [`auth`]. `taint`
//! plans in [`taint_plan`], `drain` filters in [`drain_plan`] and sends in
//! [`drain`]; `expose` builds its Service in [`expose`]; the node verbs'
//! requests (`cordon`, `taint`) are in [`node_verbs`], `get` of several
//! kinds in [`get_many`]; `exec` in [`exec`].

mod attachable;
mod auth;
mod describe;
pub mod drain;
pub mod drain_plan;
pub mod edit;
mod exec;
pub mod expose;
mod get_many;
mod get_output;
mod get_watch;
mod label_plan;
mod node_verbs;
pub mod patch;
mod rollout;
pub mod taint_plan;
mod verbs;

use crate::trace::Actor;
use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::Value;

use super::apiserver::handler::Response;
use super::apiserver::request::{Body, Credentials, Propagation, Request, UserInfo, Verb};
use super::apiserver::strategic_merge_patch;
use super::command::{GetOptions, Output, RolloutAction};
use super::component::{Cx, KubectlTimer, RequestId};
use super::store::selector::parse_labels;
pub use drain::DrainOptions;
pub use exec::ExecPlan;
pub use expose::ExposeSpec;
use k8s_openapi::api::apps::v1::Deployment;
use podflow_model::{Kind, Object, status};
pub use taint_plan::TaintChanges;

/// The annotation client-side apply keeps the last applied manifest in.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// One object of a `-f` file, as kubectl sends it.
#[derive(Debug, Clone, PartialEq)]
pub struct FileObject {
    pub object: Object,
    /// Field paths the manifest had that the kind does not (sent; the server decides).
    pub unknown_fields: Vec<String>,
    /// A value of the wrong type (sent; the server's decoder refuses it).
    pub type_error: Option<podflow_scenario::TypeMismatch>,
    /// The file it came from, as kubectl names it in errors.
    pub source: String,
}

impl FileObject {
    /// The objects read from `source` (a `-f` file), as kubectl sends them.
    pub fn from_file(source: &str, read: Vec<podflow_scenario::DecodedObject>) -> Vec<FileObject> {
        read.into_iter()
            .map(|m| FileObject {
                object: m.object,
                unknown_fields: m.unknown_fields,
                type_error: m.type_error,
                source: source.to_owned(),
            })
            .collect()
    }
}

/// A command of the cluster language, with its files already read.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// `apply -f FILE [-n NS]`
    Apply {
        manifests: Vec<FileObject>,
        namespace: Option<String>,
    },
    /// `create -f FILE [-n NS]`: a plain POST.
    Create {
        manifests: Vec<FileObject>,
        namespace: Option<String>,
    },
    /// `get KIND [NAME] [-n NS|-A] [-l SEL] [-o …] [--show-labels]`
    Get {
        kind: &'static Kind,
        name: Option<String>,
        namespace: Option<String>,
        options: GetOptions,
    },
    /// `describe KIND NAME`.
    Describe {
        kind: &'static Kind,
        name: String,
        namespace: Option<String>,
    },
    /// `auth can-i VERB TARGET [NAME]`: a `SelfSubjectAccessReview`; an
    /// empty namespace asks about every namespace (`-A`).
    AuthCanI {
        verb: String,
        target: AccessTarget,
        name: Option<String>,
        namespace: Option<String>,
    },
    /// `auth whoami`: a `SelfSubjectReview`.
    AuthWhoami,
    /// `logs POD [-c CONTAINER] [--tail N] [-p]`: the `pods/log` subresource.
    Logs {
        pod: String,
        namespace: Option<String>,
        container: Option<String>,
        tail: Option<i64>,
        /// `--previous`: the last terminated instance's output.
        previous: bool,
    },
    /// `exec POD [-c CONTAINER] [-i] [-t] -- COMMAND…`: the Pod's GET, then
    /// `pods/exec`; with `TYPE/NAME` of a workload or Service, its GET and
    /// the LIST of the Pods it selects first.
    Exec {
        kind: &'static Kind,
        name: String,
        namespace: Option<String>,
        plan: ExecPlan,
    },
    /// `label`/`annotate KIND NAME KEY=VALUE… KEY-… [--overwrite]`.
    Label {
        kind: &'static Kind,
        name: String,
        namespace: Option<String>,
        changes: Vec<(String, Option<String>)>,
        overwrite: bool,
        annotate: bool,
    },
    /// `delete KIND NAME [-n NS]`
    Delete {
        kind: &'static Kind,
        name: String,
        namespace: Option<String>,
        /// `--cascade`: sent as `propagationPolicy`.
        cascade: Propagation,
    },
    /// `scale KIND NAME --replicas=N`
    Scale {
        kind: &'static Kind,
        name: String,
        namespace: Option<String>,
        replicas: i32,
    },
    /// `delete -f FILE`: each object named, one DELETE after another.
    DeleteObjects {
        targets: Vec<(&'static Kind, String, Option<String>)>,
        cascade: Propagation,
    },
    /// `edit KIND NAME`: the object as an editor showed it and as it was
    /// saved (`None` where there is no editor: `--step`, a lesson's script);
    /// a GET, then the two-way patch between them.
    Edit {
        kind: &'static Kind,
        name: String,
        namespace: Option<String>,
        change: Option<Box<(Object, Object)>>,
    },
    /// `patch KIND NAME -p PATCH [--type …] [--subresource …]`: a GET, then the patch.
    Patch(Box<patch::PatchPlan>),
    /// `set image KIND/NAME CONTAINER=IMAGE…`: a GET, then a patch.
    SetImage {
        kind: &'static Kind,
        name: String,
        namespace: Option<String>,
        images: Vec<(String, String)>,
    },
    /// `rollout status|history|undo|restart deployment/NAME`.
    Rollout {
        action: RolloutAction,
        name: String,
        namespace: Option<String>,
    },
    /// `get KIND,KIND… [NAME…]` or `get KIND/NAME KIND/NAME…`: each kind's
    /// list (or each object), printed together as kubectl prints several kinds.
    GetMany {
        targets: Vec<(&'static Kind, Option<String>)>,
        namespace: Option<String>,
        options: GetOptions,
    },
    /// `cordon NODE` (`true`) or `uncordon NODE` (`false`).
    Cordon { node: String, unschedulable: bool },
    /// `taint nodes NODE KEY=VALUE:EFFECT… KEY:EFFECT-… [--overwrite]`.
    Taint {
        node: String,
        changes: TaintChanges,
        overwrite: bool,
    },
    /// `drain NODE [--force] [--ignore-daemonsets] [--delete-emptydir-data] …`.
    Drain { node: String, options: DrainOptions },
    /// `expose KIND NAME [--port=N] …`: a Service for the object.
    Expose {
        kind: &'static Kind,
        name: String,
        namespace: Option<String>,
        spec: ExposeSpec,
    },
    /// `fault node NODE` (`true`) or `recover node NODE` (`false`): not a
    /// request; the node's kubelet loses (or regains) the API server. With
    /// `memory` (`fault node NODE memory-pressure`), something outside the
    /// pods takes the node's memory instead; `recover` ends both.
    NodeFault {
        node: String,
        faulted: bool,
        memory: bool,
    },
    /// `wait DURATION` / `wait idle`
    Wait(Wait),
    /// A command with `--as USER [--as-group G]…`: its requests carry
    /// `Impersonate-User` and `Impersonate-Group`.
    As {
        user: UserInfo,
        command: Box<Command>,
    },
}

/// What `auth can-i` asks about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccessTarget {
    Resource {
        kind: &'static Kind,
        subresource: Option<String>,
    },
    /// A non-resource URL (`/healthz`).
    Path(String),
}

/// What `wait` waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// Until nothing is left to do.
    Idle,
    /// This many simulated milliseconds.
    For(u64),
}

/// A request kubectl is waiting on, and what it means.
#[derive(Debug, Clone)]
enum InFlight {
    /// The GET of an apply.
    ApplyGet {
        manifest: Box<FileObject>,
        namespace: Option<String>,
    },
    /// The create or patch of an apply; `verb` is `created` or `configured`.
    ApplyWrite {
        manifest: Box<FileObject>,
        done: &'static str,
    },
    /// The POST of a create.
    Create { manifest: Box<FileObject> },
    /// Any other request; `done` is printed on success.
    Plain { done: String },
    /// A get or list, in this namespace, printed as `options` say.
    Get {
        kind: &'static Kind,
        namespace: Option<String>,
        options: GetOptions,
    },
    /// `get -w`'s watch, after its list.
    Watch(Box<get_watch::Watching>),
    /// The Pod's GET before `exec`.
    ExecGet(Box<ExecPlan>),
    /// The GET of the workload or Service `exec` was given.
    ExecOwnerGet(Box<ExecPlan>),
    /// The LIST of the Pods it selects.
    ExecPods(Box<ExecPlan>),
    /// The `pods/exec` connection: what the command printed.
    Exec,
    /// `pods/log`: the last `tail` lines are printed.
    Logs { tail: Option<i64> },
    /// The GET before a `label` or `annotate` patch.
    LabelGet(Box<LabelChange>),
    /// A `SelfSubjectAccessReview`: `yes`, or `no` with the reason.
    CanI,
    /// A `SelfSubjectReview`: the user's attributes.
    Whoami,
    /// The GET of the object `describe` prints.
    DescribeGet,
    /// A LIST `describe` reads besides the object.
    DescribeRelated(Box<describe::Describing>),
    /// `patch`'s GET, then its PATCH.
    Patch(Box<patch::Patching>),
    /// The GET before `set image`'s patch.
    SetImageGet { images: Vec<(String, String)> },
    /// The GET before `edit`'s patch: what the editor showed and saved.
    EditGet { change: Box<(Object, Object)> },
    /// The GET of the Deployment a `rollout` acts on.
    RolloutGet { action: RolloutAction },
    /// The node's GET before `cordon` or `uncordon` patches it.
    CordonGet { unschedulable: bool },
    /// The node's GET before `taint` patches it.
    TaintGet {
        changes: Box<TaintChanges>,
        overwrite: bool,
    },
    /// A request of `drain`, with what the drain has done so far.
    Drain(Box<drain::Draining>),
    /// The GET of the object `expose` exposes.
    ExposeGet {
        spec: Box<ExposeSpec>,
        namespace: Option<String>,
    },
    /// One of the GETs or LISTs of a `get` of several kinds.
    GetMany(Box<get_many::Gathering>),
    /// The LIST of replica sets `rollout history` and `undo` read.
    RolloutReplicaSets {
        action: RolloutAction,
        deployment: Box<Deployment>,
    },
}

/// What `label` or `annotate` changes.
#[derive(Debug, Clone)]
struct LabelChange {
    changes: Vec<(String, Option<String>)>,
    overwrite: bool,
    annotate: bool,
}

/// kubectl's state.
#[derive(Debug, Clone)]
pub struct Kubectl {
    identity: Credentials,
    /// What is left to do, one request-sized piece at a time.
    todo: VecDeque<Command>,
    /// Apply and create run object by object; the objects still to go.
    objects: VecDeque<(FileObject, Option<String>, bool)>,
    inflight: Option<(RequestId, InFlight)>,
    /// The kind of the request in flight, for the API server's deprecation warning.
    inflight_kind: Option<&'static Kind>,
    /// The warnings this command printed (kubectl prints each once).
    warned: Vec<String>,
    waiting_idle: bool,
    waiting_timer: bool,
    /// The last line `rollout status` printed (it prints only changes).
    rollout_line: Option<String>,
    /// A drain waiting a second before it looks at its Pods again.
    draining: Option<Box<drain::Draining>>,
    /// `--as`: the user the current command's requests act as.
    acting_as: Option<UserInfo>,
    /// `get -w`'s open watch, until the next command.
    watching: Option<Box<get_watch::Watching>>,
}

const ME: Actor = Actor::Kubectl;
/// The namespace kubectl uses when none is given (the kubeconfig's context has none).
const DEFAULT_NAMESPACE: &str = "default";

impl Kubectl {
    /// kubectl about to run `commands` as `identity`.
    pub fn new(commands: Vec<Command>, identity: Credentials) -> Kubectl {
        Kubectl {
            identity,
            todo: commands.into(),
            objects: VecDeque::new(),
            inflight: None,
            inflight_kind: None,
            warned: Vec::new(),
            waiting_idle: false,
            waiting_timer: false,
            rollout_line: None,
            draining: None,
            acting_as: None,
            watching: None,
        }
    }

    /// Whether it is waiting for the cluster to settle (`wait idle`).
    pub fn waiting_for_idle(&self) -> bool {
        self.waiting_idle
    }

    /// Adds commands to run after the current ones (the TUI's command bar).
    pub fn push(&mut self, command: Command) {
        self.todo.push_back(command);
    }

    /// The cluster settled: `wait idle` is over.
    pub fn on_idle(&mut self, cx: &mut Cx<'_>) {
        self.waiting_idle = false;
        self.next(cx);
    }

    /// A `wait` ended, or there is new work.
    pub fn on_timer(&mut self, timer: KubectlTimer, cx: &mut Cx<'_>) {
        match timer {
            KubectlTimer::WaitOver => self.waiting_timer = false,
            KubectlTimer::NewWork => {}
        }
        self.next(cx);
    }

    fn request(
        &self,
        verb: Verb,
        kind: &'static Kind,
        namespace: Option<String>,
        name: &str,
    ) -> Request {
        Request::new(ME, self.credentials(), verb, kind, namespace, name)
    }

    /// Who the requests are from: kubectl's identity, asking to act as the
    /// `--as` user when the command has one (a kubeconfig's own
    /// impersonation gives way to the flag's).
    fn credentials(&self) -> Credentials {
        match (&self.acting_as, &self.identity) {
            (None, identity) => identity.clone(),
            (Some(user), Credentials::Impersonated { by, .. }) => Credentials::Impersonated {
                by: by.clone(),
                user: user.clone(),
            },
            (Some(user), own) => Credentials::Impersonated {
                by: Box::new(own.clone()),
                user: user.clone(),
            },
        }
    }

    fn print_all(cx: &mut Cx<'_>, lines: Vec<String>) {
        for line in lines {
            Self::print(cx, line);
        }
    }

    fn print(cx: &mut Cx<'_>, line: String) {
        cx.log(&ME, None, line);
    }

    /// The API server's deprecation warning for the answered request's
    /// kind, printed as client-go's warning handler does, once a command.
    fn print_deprecation_warning(&mut self, cx: &mut Cx<'_>) {
        let warning = self
            .inflight_kind
            .take()
            .and_then(crate::apiserver::deprecation::warning);
        if let Some(warning) = warning.filter(|w| !self.warned.contains(w)) {
            Self::print(cx, format!("Warning: {warning}"));
            self.warned.push(warning);
        }
    }

    /// Starts the next piece of work, if nothing is in flight.
    fn next(&mut self, cx: &mut Cx<'_>) {
        while self.inflight.is_none() && !self.waiting_idle && !self.waiting_timer {
            if self.draining.is_some() {
                self.resume_drain(cx);
                continue;
            }
            if let Some((manifest, namespace, apply)) = self.objects.pop_front() {
                if apply {
                    self.start_apply(manifest, namespace.as_deref(), cx);
                } else {
                    self.start_create(manifest, namespace.as_deref(), cx);
                }
                continue;
            }
            let Some(command) = self.todo.pop_front() else {
                return;
            };
            self.acting_as = None;
            self.warned.clear();
            // The next command ends `get -w`, as Ctrl-C ends kubectl's.
            if self.watching.is_some() && !matches!(command, Command::Wait(_)) {
                self.watching = None;
                cx.stop_watching();
            }
            self.start(command, cx);
        }
    }

    /// Sends `request` and remembers what its answer means.
    fn send(&mut self, request: Request, meaning: InFlight, cx: &mut Cx<'_>) {
        self.inflight_kind = Some(request.kind);
        let id = cx.send(request);
        self.inflight = Some((id, meaning));
    }

    /// Sends a request whose success prints `done`.
    fn send_plain(&mut self, request: Request, done: String, cx: &mut Cx<'_>) {
        self.send(request, InFlight::Plain { done }, cx);
    }

    fn start(&mut self, command: Command, cx: &mut Cx<'_>) {
        let or_default = |ns: Option<String>| ns.or_else(|| Some(DEFAULT_NAMESPACE.into()));
        match command {
            Command::Apply {
                manifests,
                namespace,
            } => {
                self.objects
                    .extend(manifests.into_iter().map(|m| (m, namespace.clone(), true)));
            }
            Command::Create {
                manifests,
                namespace,
            } => {
                self.objects
                    .extend(manifests.into_iter().map(|m| (m, namespace.clone(), false)));
            }
            Command::Get {
                kind,
                name,
                namespace,
                options,
            } => self.start_get(kind, name.as_deref(), or_default(namespace), options, cx),
            command @ (Command::Describe { .. }
            | Command::AuthCanI { .. }
            | Command::AuthWhoami
            | Command::Logs { .. }
            | Command::Exec { .. }
            | Command::Label { .. }
            | Command::SetImage { .. }
            | Command::Edit { .. }
            | Command::Rollout { .. }) => self.start_verb(command, cx),
            Command::Delete {
                kind,
                name,
                namespace,
                cascade,
            } => {
                let namespace = or_default(namespace).filter(|_| kind.namespaced);
                self.start_delete(kind, &name, namespace, cascade, cx);
            }
            Command::Patch(mut plan) => {
                plan.namespace = or_default(plan.namespace.take());
                self.start_patch(*plan, cx);
            }
            Command::Scale {
                kind,
                name,
                namespace,
                replicas,
            } => self.start_scale(kind, &name, or_default(namespace), replicas, cx),
            Command::GetMany {
                targets,
                namespace,
                options,
            } => self.start_get_many(targets, or_default(namespace), options, cx),
            Command::Cordon {
                node,
                unschedulable,
            } => self.start_cordon(&node, unschedulable, cx),
            Command::Taint {
                node,
                changes,
                overwrite,
            } => self.start_taint(&node, changes, overwrite, cx),
            Command::Drain { node, options } => self.start_drain(node, options, cx),
            Command::Expose {
                kind,
                name,
                namespace,
                spec,
            } => {
                let namespace = or_default(namespace);
                let req = self.request(Verb::Get, kind, namespace.clone(), &name);
                let meaning = InFlight::ExposeGet {
                    spec: Box::new(spec),
                    namespace,
                };
                self.send(req, meaning, cx);
            }
            Command::DeleteObjects { targets, cascade } => {
                for (kind, name, namespace) in targets.into_iter().rev() {
                    self.todo.push_front(Command::Delete {
                        kind,
                        name,
                        namespace,
                        cascade,
                    });
                }
            }
            fault @ Command::NodeFault { .. } => fault_node(fault, cx),
            Command::As { user, command } => {
                self.acting_as = Some(user);
                self.start(*command, cx);
            }
            Command::Wait(Wait::Idle) => self.waiting_idle = true,
            Command::Wait(Wait::For(ms)) => {
                self.waiting_timer = true;
                cx.after(ms, KubectlTimer::WaitOver);
            }
        }
    }

    /// `delete KIND NAME`.
    fn start_delete(
        &mut self,
        kind: &'static Kind,
        name: &str,
        namespace: Option<String>,
        cascade: Propagation,
        cx: &mut Cx<'_>,
    ) {
        // kubectl names the namespace since 1.34 (kubernetes/kubernetes#126619).
        let done = match &namespace {
            Some(ns) => format!("{} \"{name}\" deleted from {ns} namespace", type_name(kind)),
            None => format!("{} \"{name}\" deleted", type_name(kind)),
        };
        let req = self
            .request(Verb::Delete, kind, namespace, name)
            .propagation(cascade);
        self.send_plain(req, done, cx);
    }

    /// `scale`: a patch of the scale subresource (`scale.ScaleREST`).
    fn start_scale(
        &mut self,
        kind: &'static Kind,
        name: &str,
        namespace: Option<String>,
        replicas: i32,
        cx: &mut Cx<'_>,
    ) {
        let patch = serde_json::json!({"spec": {"replicas": replicas}});
        let req = self
            .request(Verb::Patch, kind, namespace, name)
            .subresource("scale")
            .body(Body::Patch(patch));
        let done = format!("{}/{name} scaled", type_name(kind));
        self.send_plain(req, done, cx);
    }

    /// A GET (with a name) or a LIST, across namespaces with `-A`.
    fn start_get(
        &mut self,
        kind: &'static Kind,
        name: Option<&str>,
        namespace: Option<String>,
        options: GetOptions,
        cx: &mut Cx<'_>,
    ) {
        let verb = if name.is_some() {
            Verb::Get
        } else {
            Verb::List
        };
        let namespace =
            namespace.filter(|_| kind.namespaced && !(options.all_namespaces && name.is_none()));
        let mut req = self.request(verb, kind, namespace.clone(), name.unwrap_or_default());
        if let Some(selector) = &options.selector {
            // Checked when the command was parsed.
            req.selector.labels = parse_labels(selector).unwrap_or_default();
        }
        self.send(
            req,
            InFlight::Get {
                kind,
                namespace,
                options,
            },
            cx,
        );
    }

    fn start_apply(&mut self, manifest: FileObject, namespace: Option<&str>, cx: &mut Cx<'_>) {
        let namespace = match resolve_namespace(&manifest, namespace) {
            Ok(ns) => ns,
            Err(line) => return Self::print(cx, line),
        };
        let req = self.request(
            Verb::Get,
            manifest.object.kind(),
            namespace.clone(),
            manifest.object.name(),
        );
        self.send(
            req,
            InFlight::ApplyGet {
                manifest: Box::new(manifest),
                namespace,
            },
            cx,
        );
    }

    fn start_create(&mut self, manifest: FileObject, namespace: Option<&str>, cx: &mut Cx<'_>) {
        let namespace = match resolve_namespace(&manifest, namespace) {
            Ok(ns) => ns,
            Err(line) => return Self::print(cx, line),
        };
        let body = Body::Object(Box::new(manifest.object.clone()));
        let req = self.write_request(Verb::Create, &manifest, namespace, body);
        self.send(
            req,
            InFlight::Create {
                manifest: Box::new(manifest),
            },
            cx,
        );
    }

    fn write_request(
        &self,
        verb: Verb,
        manifest: &FileObject,
        namespace: Option<String>,
        body: Body,
    ) -> Request {
        let kind = manifest.object.kind();
        let name = if verb == Verb::Create {
            ""
        } else {
            manifest.object.name()
        };
        let mut req = self.request(verb, kind, namespace, name);
        req.body = Some(body);
        req.unknown_fields.clone_from(&manifest.unknown_fields);
        req.type_error.clone_from(&manifest.type_error);
        req
    }

    /// An answer arrived.
    pub fn on_response(&mut self, id: RequestId, response: &Response, cx: &mut Cx<'_>) {
        let Some((expected, inflight)) = self.inflight.take() else {
            return;
        };
        if expected != id {
            self.inflight = Some((expected, inflight));
            return;
        }
        self.print_deprecation_warning(cx);
        match inflight {
            InFlight::ApplyGet {
                manifest,
                namespace,
            } => self.apply_after_get(*manifest, namespace, response, cx),
            InFlight::ApplyWrite { manifest, done } => {
                if response.code < 300 {
                    Self::print(
                        cx,
                        format!(
                            "{}/{} {done}",
                            type_name(manifest.object.kind()),
                            object_name(response, &manifest)
                        ),
                    );
                } else {
                    let action = if done == "created" {
                        "creating"
                    } else {
                        "patching"
                    };
                    Self::print_all(cx, error_lines(response, &when(action, &manifest.source)));
                }
            }
            InFlight::Create { manifest } => {
                if response.code < 300 {
                    Self::print(
                        cx,
                        format!(
                            "{}/{} created",
                            type_name(manifest.object.kind()),
                            object_name(response, &manifest)
                        ),
                    );
                } else {
                    Self::print_all(
                        cx,
                        error_lines(response, &when("creating", &manifest.source)),
                    );
                }
            }
            InFlight::Plain { done } => {
                if response.code < 300 {
                    Self::print(cx, done);
                } else {
                    Self::print_all(cx, error_lines(response, ""));
                }
            }
            InFlight::Get {
                kind,
                namespace,
                options,
            } => {
                Self::print_get(response, namespace.as_deref(), &options, cx);
                if options.watch && response.code < 300 {
                    self.start_watch(kind, namespace, options, response.revision, cx);
                }
            }
            InFlight::Watch(watching) => self.watch_answered(*watching, response, cx),
            InFlight::Logs { tail } => Self::print_logs(response, tail, cx),
            InFlight::ExecGet(plan) => self.exec_after_get(*plan, response, cx),
            InFlight::ExecOwnerGet(plan) => self.exec_after_owner(*plan, response, cx),
            InFlight::ExecPods(plan) => self.exec_after_pods(*plan, response, cx),
            InFlight::Exec => Self::print_exec(response, cx),
            InFlight::LabelGet(change) => self.label_after_get(&change, response, cx),
            InFlight::CanI => Self::print_can_i(response, cx),
            InFlight::Whoami => Self::print_whoami(response, cx),
            InFlight::DescribeGet => self.describe_after_get(response, cx),
            InFlight::DescribeRelated(describing) => {
                self.describe_after_list(*describing, response, cx);
            }
            InFlight::SetImageGet { images } => self.set_image_after_get(&images, response, cx),
            InFlight::EditGet { change } => self.edit_after_get(&change, response, cx),
            InFlight::Patch(patching) => self.patch_answered(*patching, response, cx),
            InFlight::RolloutGet { action } => self.rollout_after_get(action, response, cx),
            InFlight::CordonGet { unschedulable } => {
                self.cordon_after_get(unschedulable, response, cx);
            }
            InFlight::TaintGet { changes, overwrite } => {
                self.taint_after_get(&changes, overwrite, response, cx);
            }
            InFlight::Drain(draining) => self.drain_answered(draining, response, cx),
            InFlight::ExposeGet { spec, namespace } => {
                self.expose_after_get(&spec, namespace, response, cx);
            }
            InFlight::GetMany(gathering) => self.get_many_answered(*gathering, response, cx),
            InFlight::RolloutReplicaSets { action, deployment } => {
                self.rollout_with_replica_sets(action, &deployment, response, cx);
            }
        }
        self.next(cx);
    }

    fn apply_after_get(
        &mut self,
        manifest: FileObject,
        namespace: Option<String>,
        response: &Response,
        cx: &mut Cx<'_>,
    ) {
        // The resource builder gives a namespaced object the namespace it
        // goes to (`resource.SetNamespace`), before anything is computed from it.
        let mut modified = manifest.object.clone();
        if let Some(ns) = namespace.as_deref().filter(|_| modified.kind().namespaced) {
            modified
                .metadata_mut()
                .namespace
                .get_or_insert_with(|| ns.to_owned());
        }
        let config = last_applied(&modified);
        modified
            .metadata_mut()
            .annotations
            .get_or_insert_with(Default::default)
            .insert(LAST_APPLIED.into(), config);
        match (response.code, response.object.as_deref()) {
            (404, _) => {
                let body = Body::Object(Box::new(modified));
                let req = self.write_request(Verb::Create, &manifest, namespace, body);
                let meaning = InFlight::ApplyWrite {
                    manifest: Box::new(manifest),
                    done: "created",
                };
                self.send(req, meaning, cx);
            }
            (200, Some(live)) => {
                let last = live
                    .metadata()
                    .annotations
                    .as_ref()
                    .and_then(|a| a.get(LAST_APPLIED));
                if last.is_none() {
                    // `apply.go`'s `warningNoLastAppliedConfigAnnotation`:
                    // without it nothing the manifest dropped is deleted.
                    let object = format!("{}/{}", live.kind().resource, live.name());
                    Self::print(
                        cx,
                        format!(
                            "Warning: resource {object} is missing the {LAST_APPLIED} annotation which is required by kubectl apply. kubectl apply should only be used on resources created declaratively by either kubectl create --save-config or kubectl apply. The missing annotation will be patched automatically."
                        ),
                    );
                }
                let original: Option<Value> = last.and_then(|p| serde_json::from_str(p).ok());
                let patch = strategic_merge_patch::three_way(
                    strategic_merge_patch::root(live.kind().kind),
                    original.as_ref(),
                    &modified.to_json(),
                    &live.to_json(),
                );
                if patch.as_object().is_some_and(serde_json::Map::is_empty) {
                    let name = manifest.object.name().to_owned();
                    Self::print(
                        cx,
                        format!("{}/{name} unchanged", type_name(manifest.object.kind())),
                    );
                    return;
                }
                let req = self.write_request(Verb::Patch, &manifest, namespace, Body::Patch(patch));
                let meaning = InFlight::ApplyWrite {
                    manifest: Box::new(manifest),
                    done: "configured",
                };
                self.send(req, meaning, cx);
            }
            _ => {
                let context = retrieving(&manifest, namespace.as_deref());
                Self::print_all(cx, error_lines(response, &context));
            }
        }
    }

    fn print_get(
        response: &Response,
        namespace: Option<&str>,
        options: &GetOptions,
        cx: &mut Cx<'_>,
    ) {
        if response.code >= 300 {
            Self::print_all(cx, error_lines(response, ""));
            return;
        }
        let single = response.object.is_some();
        let objects: Vec<Arc<Object>> = match &response.object {
            Some(o) => vec![Arc::clone(o)],
            None => response.items.clone(),
        };
        if objects.is_empty() && options.output.human_readable() {
            let line = match namespace {
                Some(ns) => format!("No resources found in {ns} namespace."),
                None => "No resources found".to_owned(),
            };
            Self::print(cx, line);
            return;
        }
        let lines = get_output::lines(&objects, single, options, cx.now);
        Self::print_all(cx, lines);
    }
}

/// The namespace an object goes to: its own, `-n`, or `default`; kubectl's
/// error line when the two disagree.
fn resolve_namespace(manifest: &FileObject, flag: Option<&str>) -> Result<Option<String>, String> {
    if !manifest.object.kind().namespaced {
        return Ok(None);
    }
    match (manifest.object.namespace(), flag) {
        (Some(own), Some(flag)) if own != flag => Err(format!(
            "error: the namespace from the provided object \"{own}\" does not match the namespace \"{flag}\". You must pass '--namespace={own}' to perform this operation."
        )),
        (Some(own), _) => Ok(Some(own.to_owned())),
        (None, flag) => Ok(Some(flag.unwrap_or(DEFAULT_NAMESPACE).to_owned())),
    }
}

/// The last-applied configuration, as kubectl's `GetModifiedConfiguration`
/// (`kubectl/pkg/util/apply.go`) writes it: the object as the resource
/// builder left it, its annotations without this one — an empty map when
/// none are left, so `"annotations":{}` —, as JSON with keys sorted and a
/// trailing newline.
pub fn last_applied(object: &Object) -> String {
    let mut json = object.to_json();
    if let Some(metadata) = json["metadata"].as_object_mut() {
        let annotations = metadata
            .entry("annotations")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if let Some(annotations) = annotations.as_object_mut() {
            annotations.remove(LAST_APPLIED);
        }
    }
    let mut text = sorted(&json).to_string();
    text.push('\n');
    text
}

/// A copy of `value` with every object's keys sorted, as Go's encoding/json writes maps.
pub(crate) fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&map[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// `pod`, `deployment.apps`: how kubectl names a kind in its output.
pub fn type_name(kind: &Kind) -> String {
    let lower = kind.kind.to_ascii_lowercase();
    if kind.group.is_empty() {
        lower
    } else {
        format!("{lower}.{}", kind.group)
    }
}

fn object_name(response: &Response, manifest: &FileObject) -> String {
    response.object.as_ref().map_or_else(
        || manifest.object.name().to_owned(),
        |o| o.name().to_owned(),
    )
}

/// What kubectl prints for a failed request: the request's context
/// (`AddSourceToErr`) before the server's message.
fn error_lines(response: &Response, context: &str) -> Vec<String> {
    let line = match response.status.as_ref() {
        Some(status) => status::kubectl_error_line(status, context),
        None => format!("error: the server answered {}", response.code),
    };
    line.lines().map(str::to_owned).collect()
}

/// `error when creating "pod.yaml": `, as `AddSourceToErr` words it.
fn when(action: &str, source: &str) -> String {
    if source.is_empty() {
        String::new()
    } else {
        format!("error when {action} \"{source}\": ")
    }
}

/// The context of a failed GET in `apply` (`apply.go`, with `info.String()`):
/// which object kubectl was looking for.
fn retrieving(manifest: &FileObject, namespace: Option<&str>) -> String {
    let kind = manifest.object.kind();
    let gv = if kind.group.is_empty() {
        format!("/{}", kind.version)
    } else {
        kind.api_version()
    };
    format!(
        "error when retrieving current configuration of:\nResource: \"{gv}, Resource={}\", GroupVersionKind: \"{gv}, Kind={}\"\nName: \"{}\", Namespace: \"{}\"\nfrom server for: \"{}\": ",
        kind.resource,
        kind.kind,
        manifest.object.name(),
        namespace.unwrap_or_default(),
        manifest.source
    )
}

/// `fault node` / `recover node`: handed to the engine, not a request.
fn fault_node(command: Command, cx: &mut Cx<'_>) {
    if let Command::NodeFault {
        node,
        faulted,
        memory,
    } = command
    {
        cx.fault_node(&node, faulted, memory);
    }
}
