//! The request path of kube-apiserver, one trace record a step: authentication,
//! authorization, decoding, mutating admission, validation, validating
//! admission, the etcd write, and the answer (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/`
//! `create.go`, `update.go`, `patch.go`, `delete.go`, `get.go`).

use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Status;

use super::admission::{AdmissionRequest, Plugin, SideEffects, Verdict};
use super::authn::TokenAuthenticator;
use super::request::{Body, Credentials, Operation, Request, UserInfo, Verb};
use super::strategy::{
    deletes_during_update, deletion_finalizers, prepare_for_create, prepare_for_update,
    same_ignoring_resource_version,
};
use super::{ClusterView, authz};
use crate::clock::SimTime;
use crate::component::RequestId;
use crate::rng::Rng;
use crate::shared_stages::SharedStages;
use crate::store::selector::Selector;
use crate::store::{Change, Store, StoreError, key_for};
use crate::trace::{Actor, AuthenticationDetail, Outcome, Record, Stage, StageName};
use podflow_model::{Kind, Object, status};

pub use super::response::Response;

/// What handling one request produced.
#[derive(Debug)]
pub struct Handled {
    pub records: Vec<Record>,
    pub response: Response,
    /// The store changes it made, in order, for the watch fan-out.
    pub changes: Vec<Change>,
    /// Set when an admission plugin asked to wait: the request is not
    /// answered yet (`response` means nothing) and goes on after
    /// [`Parked::retry_ms`] through [`ApiServer::resume`].
    pub parked: Option<Box<Parked>>,
}

/// A create waiting inside its mutating admission phase (upstream's handler
/// goroutine sleeping in the plugin): what it resumes from.
#[derive(Debug, Clone)]
pub struct Parked {
    /// Who sent it, as authenticated.
    user: UserInfo,
    /// The object as the waiting plugin first received it.
    object: Object,
    /// The waiting plugin's place in the chain.
    plugin: usize,
    /// The pass the plugin makes when resumed.
    attempt: u32,
    /// How long until then, in simulated milliseconds.
    pub retry_ms: u64,
    /// Whether the object's name was generated from its `generateName`.
    generated_name: bool,
}

/// How much the trace records of persistence carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// Every verdict, and each written object in its `persist` record.
    Full,
    /// One summary record where full would give many.
    Summary,
}

/// The parts of kube-apiserver that do not change while it runs.
pub struct ApiServer<'a> {
    pub authn: &'a TokenAuthenticator,
    pub admission: &'a [Box<dyn Plugin>],
    pub detail: Detail,
}

/// One request being handled: the records so far and the store it works on.
struct Handling<'a, 'b> {
    server: &'b ApiServer<'a>,
    store: &'b mut Store,
    rng: &'b mut Rng,
    now: SimTime,
    request: &'b Request,
    stages: &'b mut SharedStages,
    records: Vec<Record>,
    changes: Vec<Change>,
    /// The parked create this handling resumes.
    resume: Option<Box<Parked>>,
    /// Set when a plugin asked to wait.
    parked: Option<Box<Parked>>,
    /// The interval the resumed plugin chose on its first pass.
    retry_ms: Option<u64>,
    /// The create's name was generated from `generateName` (so a clash is retried).
    generated_name: bool,
}

impl ApiServer<'_> {
    /// Handles request number `id` against `store`, its stages shared
    /// with equal ones of earlier requests through `stages`.
    pub fn handle(
        &self,
        store: &mut Store,
        rng: &mut Rng,
        stages: &mut SharedStages,
        now: SimTime,
        id: RequestId,
        request: &Request,
    ) -> Handled {
        self.handle_from(store, rng, stages, now, (id, request), None)
    }

    /// Goes on with request number `id`, parked in admission, from the plugin that waited.
    pub fn resume(
        &self,
        store: &mut Store,
        rng: &mut Rng,
        stages: &mut SharedStages,
        now: SimTime,
        (id, request): (RequestId, &Request),
        parked: Box<Parked>,
    ) -> Handled {
        self.handle_from(store, rng, stages, now, (id, request), Some(parked))
    }

    fn handle_from(
        &self,
        store: &mut Store,
        rng: &mut Rng,
        stages: &mut SharedStages,
        now: SimTime,
        (id, request): (RequestId, &Request),
        resume: Option<Box<Parked>>,
    ) -> Handled {
        let mut h = Handling {
            server: self,
            store,
            rng,
            now,
            request,
            stages,
            records: Vec::new(),
            changes: Vec::new(),
            retry_ms: resume.as_ref().map(|p| p.retry_ms),
            generated_name: resume.as_ref().is_some_and(|p| p.generated_name),
            resume,
            parked: None,
        };
        let response = h.run().unwrap_or_else(|status| Response::failed(*status));
        if h.parked.is_some() {
            return Handled {
                records: h.records,
                response,
                changes: h.changes,
                parked: h.parked,
            };
        }
        h.records.push(Record::Response {
            to: request.client.clone(),
            code: response.code,
            message: response.message(),
            request: id,
        });
        Handled {
            records: h.records,
            response,
            changes: h.changes,
            parked: None,
        }
    }
}

/// A step of the request path: its result, or the `Status` the request is refused with.
type Step<T> = Result<T, Box<Status>>;

/// `Pod in version "v1" cannot be handled as a Pod: DETAIL`: how the API server
/// answers a body it cannot decode (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go`,
/// `transformDecodeError`).
/// The message of strict field validation (`runtime.NewStrictDecodingError`):
/// `strict decoding error: unknown field "a", unknown field "b"`.
pub fn strict_decoding_error(fields: &[String]) -> String {
    let list: Vec<String> = fields
        .iter()
        .map(|f| format!("unknown field \"{f}\""))
        .collect();
    format!("strict decoding error: {}", list.join(", "))
}

fn cannot_handle(kind: &Kind, detail: &str) -> Status {
    status::bad_request(format!(
        "{} in version \"{}\" cannot be handled as a {}: {detail}",
        kind.kind, kind.version, kind.kind
    ))
}

impl Handling<'_, '_> {
    fn stage(&mut self, stage: Stage) {
        let record = self.stages.record(stage);
        self.records.push(record);
    }

    fn run(&mut self) -> Step<Response> {
        if let Some(parked) = self.resume.take() {
            return self.create_from(*parked);
        }
        let user = self.authenticate()?;
        self.authorize(&user)?;
        let kind = self.request.kind;
        match (self.request.verb, self.request.subresource.as_deref()) {
            // `pods/exec`: the Pod is read; the engine hands the connection to its kubelet.
            (Verb::Get, _) | (Verb::Create, Some("exec")) => self.get(),
            (Verb::Create, Some("binding")) => self.bind(&user),
            (Verb::Create, Some("eviction")) => self.evict(&user),
            (Verb::Create, _) if super::reviews::is_review_kind(kind) => self.review(&user),
            (Verb::Create, _) => self.create(&user),
            (Verb::Update | Verb::Patch, Some("scale")) => self.scale(&user),
            (Verb::Update | Verb::Patch, _) => self.update(&user, self.request.body.as_ref()),
            (Verb::List, _) => Ok(self.list()),
            (Verb::Watch, _) => self.watch(),
            (Verb::Delete, _) => self.delete(&user, kind),
        }
    }

    fn authenticate(&mut self) -> Step<UserInfo> {
        // The requester authenticates first; the impersonation filter then
        // checks it may act as the user and groups asked for.
        if let Credentials::Impersonated { by, user } = &self.request.credentials
            && let Some(requester) = self.server.authn.authenticate(by)
        {
            self.may_impersonate(&requester.user, user)?;
        }
        if let Some(who) = self.server.authn.authenticate(&self.request.credentials) {
            self.stage(Stage::new(
                Actor::ApiServer,
                StageName::Authentication,
                Outcome::Allow,
                AuthenticationDetail {
                    user: who.user.name.clone(),
                    groups: who.user.groups.clone(),
                    method: who.method,
                },
            ));
            Ok(who.user)
        } else {
            self.stage(Stage::new(
                Actor::ApiServer,
                StageName::Authentication,
                Outcome::Deny,
                "no authenticator recognised the bearer token",
            ));
            Err(Box::new(status::unauthorized()))
        }
    }

    /// The impersonation filter: the requester needs the `impersonate` verb
    /// on the user and on each group it asks to act as
    /// (`staging/src/k8s.io/apiserver/pkg/endpoints/filters/impersonation.go`).
    fn may_impersonate(&mut self, by: &UserInfo, user: &UserInfo) -> Step<()> {
        let requester = by.clone();
        let asked = std::iter::once(("users", user.name.as_str()))
            .chain(user.groups.iter().map(|g| ("groups", g.as_str())));
        for (resource, name) in asked {
            let attrs = authz::Attributes {
                user: &requester,
                verb: "impersonate",
                api_group: "",
                resource,
                subresource: None,
                namespace: None,
                name,
                field_selector: None,
                non_resource_path: None,
            };
            if !authz::authorize(&attrs, &*self.store).allowed {
                let reason = authz::forbidden_reason(&attrs);
                self.stage(Stage::new(
                    Actor::ApiServer,
                    StageName::Authentication,
                    Outcome::Deny,
                    format!("impersonation refused: {reason}"),
                ));
                return Err(Box::new(status::impersonation_forbidden(
                    resource, name, &reason,
                )));
            }
        }
        Ok(())
    }

    /// The authorization filter: the chain's answers in one stage
    /// (`Node: no opinion; RBAC: allow (...)`), and for a denial the 403 whose
    /// message carries the authorizers' reasons
    /// (`staging/src/k8s.io/apiserver/pkg/endpoints/filters/authorization.go`).
    fn authorize(&mut self, user: &UserInfo) -> Step<()> {
        let req = self.request;
        let attrs = authz::Attributes::for_request(user, req);
        let decision = authz::authorize(&attrs, &*self.store);
        let chain = decision.chain_summary();
        if decision.allowed {
            self.stage(
                Stage::new(
                    Actor::ApiServer,
                    StageName::Authorization,
                    Outcome::Allow,
                    chain,
                )
                .plugin(decision.authorizer),
            );
            Ok(())
        } else {
            let reason = authz::forbidden_reason(&attrs);
            self.stage(
                Stage::new(
                    Actor::ApiServer,
                    StageName::Authorization,
                    Outcome::Deny,
                    format!("{chain}; denied: {reason}"),
                )
                .plugin(decision.authorizer),
            );
            Err(Box::new(authz::forbidden_status(
                req.kind, &attrs, &decision,
            )))
        }
    }

    /// The object in the request body, defaulted, after strict decoding.
    /// The object in the request body, decoded strictly and defaulted.
    fn decoded_body(&mut self) -> Step<Object> {
        let req = self.request;
        let Some(Body::Object(object)) = &req.body else {
            return Err(self.refuse_decode(status::bad_request(
                "the body of the request was in an unknown format".into(),
            )));
        };
        let refusal = if let Some(mismatch) = &req.type_error {
            Some(cannot_handle(
                req.kind,
                &super::decode_error::unmarshal_type_error(req.kind, mismatch),
            ))
        } else if req.unknown_fields.is_empty() {
            super::validation::decode_errors(object).map(status::bad_request)
        } else {
            Some(cannot_handle(
                req.kind,
                &strict_decoding_error(&req.unknown_fields),
            ))
        };
        if let Some(refusal) = refusal {
            return Err(self.refuse_decode(refusal));
        }
        let mut object = (**object).clone();
        super::defaults::apply(&mut object);
        Ok(object)
    }

    /// Records a `decode` stage that refused the body.
    fn refuse_decode(&mut self, refusal: Status) -> Box<Status> {
        let message = refusal.message.clone().unwrap_or_default();
        self.stage(Stage::new(
            Actor::ApiServer,
            StageName::Decode,
            Outcome::Deny,
            message,
        ));
        Box::new(refusal)
    }

    fn create(&mut self, user: &UserInfo) -> Step<Response> {
        let req = self.request;
        let kind = req.kind;
        let mut object = self.decoded_body()?;
        if kind.namespaced {
            let ns = req
                .namespace
                .clone()
                .or_else(|| object.namespace().map(str::to_owned));
            if let (Some(ns_obj), Some(ns_req)) = (object.namespace(), req.namespace.as_deref())
                && ns_obj != ns_req
            {
                let message = "the namespace of the provided object does not match the namespace sent on the request";
                return Err(Box::new(status::bad_request(message.into())));
            }
            object.metadata_mut().namespace = ns;
        }
        let meta = object.metadata();
        self.generated_name =
            meta.name.as_deref().unwrap_or_default().is_empty() && meta.generate_name.is_some();
        prepare_for_create(&mut object, self.rng, self.now);
        self.create_admitted(user, object, 0, 1)
    }

    /// A parked create goes on at the plugin that waited.
    fn create_from(&mut self, parked: Parked) -> Step<Response> {
        let Parked {
            user,
            object,
            plugin,
            attempt,
            ..
        } = parked;
        self.create_admitted(&user, object, plugin, attempt)
    }

    /// A create from its mutating admission on (from plugin number `from`,
    /// whose pass is `attempt`) to its write.
    fn create_admitted(
        &mut self,
        user: &UserInfo,
        mut object: Object,
        from: usize,
        attempt: u32,
    ) -> Step<Response> {
        let req = self.request;
        let kind = req.kind;
        let name = object.name().to_owned();
        self.admit(Operation::Create, user, &mut object, None, (from, attempt))?;
        if let Object::Pod(pod) = &mut object {
            // Upstream's PrepareForCreate runs after mutating admission, so the
            // class counts the requests and limits LimitRanger filled in.
            let class = super::strategy::qos_class(pod);
            pod.status.get_or_insert_with(Default::default).qos_class = Some(class.into());
        }
        if let Object::Service(svc) = &mut object {
            // The Service registry's BeginCreate: IP families, cluster IP, node ports.
            super::service_alloc::allocate(self.store, self.rng, svc);
        }
        self.validate(super::validation::validate_create, &object)?;
        let effects = self.admit_validating(Operation::Create, user, &object, None)?;
        for write in effects.writes {
            self.persist_update(write);
        }
        let mut name = name;
        let mut attempts = 1;
        loop {
            let key = key_for(kind, object.namespace(), &name);
            if self.store.get(&key).is_none() {
                let Ok(entry) = self.store.create(&key, object) else {
                    return Err(Box::new(status::already_exists(kind, &name)));
                };
                let entry = entry.clone();
                self.record_persist(&key, entry.mod_revision, &entry.object);
                self.push_last_change();
                return Ok(Response::ok(201, entry.object));
            }
            self.stage(Stage::new(
                Actor::Etcd,
                StageName::Persist,
                Outcome::Deny,
                format!("{key} already exists"),
            ));
            // `RetryGenerateName` (GA in 1.32): a generated name that clashes
            // is generated afresh, up to `maxNameGenerationCreateAttempts`
            // (8) attempts in all (`staging/src/k8s.io/apiserver/pkg/registry/
            // generic/registry/store.go`, `createWithGenerateNameRetry`).
            if !self.generated_name || attempts >= super::strategy::NAME_GENERATION_ATTEMPTS {
                return Err(Box::new(status::already_exists(kind, &name)));
            }
            super::strategy::regenerate_name(&mut object, self.rng, self.now);
            object.name().clone_into(&mut name);
            attempts += 1;
        }
    }

    /// `pods/eviction` (`kubectl drain`): no `PodDisruptionBudget` can stand in
    /// the way (podflow has none), so the Pod is deleted with the eviction's
    /// options and the answer is a success `Status`
    /// (`pkg/registry/core/pod/storage/eviction.go`).
    fn evict(&mut self, user: &UserInfo) -> Step<Response> {
        let kind = self.request.kind;
        let mut response = self.delete(user, kind)?;
        let mut ok = status::success(kind, &self.request.name);
        ok.code = Some(201);
        response.code = 201;
        response.status = Some(ok);
        Ok(response)
    }

    /// A review, answered and never stored.
    fn review(&mut self, user: &UserInfo) -> Step<Response> {
        let object = self.decoded_body()?;
        let (answer, stage) = super::reviews::answer(user, object, &*self.store);
        self.stage(stage);
        Ok(Response::ok(201, Arc::new(answer)))
    }

    /// An update or patch of the named object with `body`.
    fn update(&mut self, user: &UserInfo, body: Option<&Body>) -> Step<Response> {
        let req = self.request;
        let kind = req.kind;
        let key = key_for(kind, req.namespace.as_deref(), &req.name);
        let Some(current) = self.store.get(&key).map(|e| Arc::clone(&e.object)) else {
            return Err(Box::new(status::not_found(kind, &req.name)));
        };
        let status = req.subresource.as_deref() == Some("status");
        let mut object = match body {
            Some(Body::Patch(patch)) => {
                super::patch_request::patched(kind, &current, patch, status)
                    .map_err(|e| Box::new(cannot_handle(kind, &e)))?
            }
            Some(Body::MergePatch(patch)) => {
                super::patch_request::merge_patched(kind, &current, patch)
                    .map_err(|e| Box::new(status::bad_request(e)))?
            }
            Some(Body::JsonPatch(patch)) => {
                super::patch_request::json_patched(kind, &current, patch)
                    .map_err(|e| Box::new(status::unprocessable(e)))?
            }
            _ => self.decoded_body()?,
        };
        let expected = object
            .metadata()
            .resource_version
            .as_deref()
            .and_then(|rv| rv.parse::<u64>().ok());
        prepare_for_update(&mut object, &current, req.subresource.as_deref());
        self.admit(Operation::Update, user, &mut object, Some(&current), (0, 1))?;
        let status_update = req.subresource.as_deref() == Some("status");
        self.validate(
            |o| {
                if status_update {
                    super::validation::validate_status_update(o, &current)
                } else {
                    super::validation::validate_update(o, &current)
                }
            },
            &object,
        )?;
        let effects = self.admit_validating(Operation::Update, user, &object, Some(&current))?;
        for write in effects.writes {
            self.persist_update(write);
        }
        if same_ignoring_resource_version(&object, &current) {
            // A no-op update writes nothing, as the API server's GuaranteedUpdate skips it.
            self.stage(Stage::new(
                Actor::Etcd,
                StageName::Persist,
                Outcome::Skip,
                format!("{key} unchanged"),
            ));
            return Ok(Response::ok(200, current));
        }
        if deletes_during_update(&object, &current) {
            if expected.is_some_and(|rv| self.store.get(&key).is_some_and(|e| e.mod_revision != rv))
            {
                return Err(Box::new(status::conflict(kind, &req.name)));
            }
            return self.remove(&key, kind);
        }
        match self.store.update(&key, object, expected) {
            Ok(entry) => {
                let entry = entry.clone();
                self.record_persist(&key, entry.mod_revision, &entry.object);
                self.push_last_change();
                Ok(Response::ok(200, entry.object))
            }
            Err(StoreError::Conflict { .. }) => {
                self.stage(Stage::new(
                    Actor::Etcd,
                    StageName::Persist,
                    Outcome::Deny,
                    format!("{key}: resourceVersion is stale"),
                ));
                Err(Box::new(status::conflict(kind, &req.name)))
            }
            Err(_) => Err(Box::new(status::not_found(kind, &req.name))),
        }
    }

    /// A patch or update of the `scale` subresource: it becomes a patch of
    /// the parent's `spec.replicas`, answered with the parent as a `Scale`.
    fn scale(&mut self, user: &UserInfo) -> Step<Response> {
        let req = self.request;
        let key = key_for(req.kind, req.namespace.as_deref(), &req.name);
        let Some(current) = self.store.get(&key).map(|e| Arc::clone(&e.object)) else {
            return Err(Box::new(status::not_found(req.kind, &req.name)));
        };
        let Some(scale) = super::scale::scale_of(&current) else {
            return Err(Box::new(status::no_such_resource()));
        };
        // A strategic merge patch of a Scale merges as a JSON merge patch
        // does: it has no lists (`kubectl scale` sends a merge patch).
        let asked = match &req.body {
            Some(Body::Patch(patch) | Body::MergePatch(patch)) => {
                super::scale::patched_replicas(&scale, patch)
            }
            Some(Body::JsonPatch(patch)) => super::scale::json_patched_replicas(&scale, patch),
            _ => None,
        };
        let replicas = asked
            .or_else(|| scale.spec.as_ref().and_then(|s| s.replicas).map(i64::from))
            .unwrap_or(0);
        let patch = Body::Patch(serde_json::json!({"spec": {"replicas": replicas}}));
        let mut response = self.update(user, Some(&patch))?;
        response.scale = response
            .object
            .as_deref()
            .and_then(super::scale::scale_of)
            .map(Box::new);
        Ok(response)
    }

    fn bind(&mut self, user: &UserInfo) -> Step<Response> {
        let req = self.request;
        let kind = req.kind;
        let Some(Body::Binding { node }) = &req.body else {
            return Err(Box::new(status::bad_request(
                "a Binding needs a target".into(),
            )));
        };
        let key = key_for(kind, req.namespace.as_deref(), &req.name);
        let Some(current) = self.store.get(&key).map(|e| Arc::clone(&e.object)) else {
            return Err(Box::new(status::not_found(kind, &req.name)));
        };
        let mut object = (*current).clone();
        self.admit(Operation::Create, user, &mut object, Some(&current), (0, 1))?;
        let Object::Pod(pod) = &mut object else {
            return Err(Box::new(status::not_found(kind, &req.name)));
        };
        // pkg/registry/core/pod/storage/storage.go, assignPod / setPodNodeAndMetadata.
        let spec = pod.spec.get_or_insert_with(Default::default);
        if let Some(assigned) = spec.node_name.as_deref().filter(|n| !n.is_empty()) {
            let message = format!(
                "pod {} is already assigned to node \"{assigned}\"",
                req.name
            );
            let mut conflict = status::conflict(kind, &req.name);
            conflict.message = Some(format!(
                "Operation cannot be fulfilled on pods/binding \"{}\": {message}",
                req.name
            ));
            return Err(Box::new(conflict));
        }
        spec.node_name = Some(node.clone());
        let status = pod.status.get_or_insert_with(Default::default);
        // The nomination has served its purpose (`ClearingNominatedNodeNameAfterBinding`).
        status.nominated_node_name = None;
        let conditions = status.conditions.get_or_insert_with(Vec::new);
        conditions.retain(|c| c.type_ != "PodScheduled");
        conditions.push(k8s_openapi::api::core::v1::PodCondition {
            type_: "PodScheduled".into(),
            status: "True".into(),
            last_transition_time: Some(self.now.to_time()),
            ..Default::default()
        });
        let expected = current
            .metadata()
            .resource_version
            .as_deref()
            .and_then(|rv| rv.parse().ok());
        let entry = self
            .store
            .update(&key, object, expected)
            .map_err(|_| Box::new(status::conflict(kind, &req.name)))?
            .clone();
        self.record_persist(&key, entry.mod_revision, &entry.object);
        self.push_last_change();
        let mut ok = status::success(kind, &req.name);
        ok.code = Some(201);
        Ok(Response {
            code: 201,
            object: Some(entry.object),
            items: Vec::new(),
            status: Some(ok),
            scale: None,
            revision: 0,
            log: None,
            exec: None,
        })
    }

    fn get(&mut self) -> Step<Response> {
        let req = self.request;
        let key = key_for(req.kind, req.namespace.as_deref(), &req.name);
        self.records.push(Record::message(
            Actor::ApiServer,
            Actor::Etcd,
            format!("range {key}"),
        ));
        match self.store.get(&key) {
            Some(entry) => Ok(Response::ok(200, Arc::clone(&entry.object))),
            None => Err(Box::new(status::not_found(req.kind, &req.name))),
        }
    }

    fn list(&mut self) -> Response {
        let req = self.request;
        let mut items = ClusterView::list(&*self.store, req.kind, req.namespace.as_deref());
        if req.selector != Selector::default() {
            let filter = req.watch_filter();
            items.retain(|o| filter.matches(o));
        }
        Response {
            code: 200,
            object: None,
            items,
            status: None,
            scale: None,
            revision: self.store.revision(),
            log: None,
            exec: None,
        }
    }

    /// A watch from `resourceVersion`: `410 Gone` when etcd has compacted
    /// past it or its history no longer reaches back to it.
    fn watch(&mut self) -> Step<Response> {
        if let Some(from) = self.request.resource_version
            && let Err(
                StoreError::Compacted {
                    requested,
                    compacted: floor,
                }
                | StoreError::Forgotten {
                    requested,
                    kept_after: floor,
                },
            ) = self.store.changes_since(from)
        {
            return Err(Box::new(status::gone(requested, floor)));
        }
        Ok(self.list())
    }

    fn delete(&mut self, user: &UserInfo, kind: &'static Kind) -> Step<Response> {
        let req = self.request;
        let key = key_for(kind, req.namespace.as_deref(), &req.name);
        let Some(current) = self.store.get(&key).map(|e| Arc::clone(&e.object)) else {
            return Err(Box::new(status::not_found(kind, &req.name)));
        };
        let mut object = (*current).clone();
        self.admit(Operation::Delete, user, &mut object, Some(&current), (0, 1))?;
        self.admit_validating(Operation::Delete, user, &object, Some(&current))?;
        // A Pod bound to a node and not yet told to stop ends gracefully: the
        // API server sets deletionTimestamp and the kubelet deletes it once its
        // containers have stopped (pkg/registry/core/pod/strategy.go, CheckGracefulDelete).
        let graceful = match &mut object {
            Object::Pod(pod) => {
                let grace = match &req.body {
                    Some(Body::Delete {
                        grace_period_seconds: Some(g),
                    }) => *g,
                    _ => pod
                        .spec
                        .as_ref()
                        .and_then(|s| s.termination_grace_period_seconds)
                        .unwrap_or(30),
                };
                let bound = pod
                    .spec
                    .as_ref()
                    .and_then(|s| s.node_name.as_deref())
                    .is_some_and(|n| !n.is_empty());
                Some(grace).filter(|g| bound && *g > 0)
            }
            _ => None,
        };
        if let Object::Namespace(ns) = &mut object {
            // The namespace registry's Delete: the first marks it Terminating;
            // while `spec.finalizers` remain, a later one changes nothing.
            let first = ns.metadata.deletion_timestamp.is_none();
            if first || super::namespace_strategy::finalizers_remain(ns) {
                if !first {
                    return Ok(Response::ok(200, current));
                }
                super::namespace_strategy::terminate(ns, self.now);
                return self.write_deleting(&key, kind, object);
            }
        }
        // Finalizers keep the object until they are gone
        // (store.go, updateForGracefulDeletionAndFinalizers).
        let finalizers = deletion_finalizers(&object, req.propagation_policy);
        let same_finalizers =
            object.metadata().finalizers.clone().unwrap_or_default() == finalizers;
        let deleting = object.metadata().deletion_timestamp.is_some();
        if graceful.is_some() || !finalizers.is_empty() {
            if deleting && same_finalizers && graceful.is_some() {
                return Ok(Response::ok(200, current));
            }
            let meta = object.metadata_mut();
            if !deleting {
                let grace = graceful.unwrap_or(0);
                let when = self.now.plus(u64::try_from(grace).unwrap_or(0) * 1000);
                meta.deletion_timestamp = Some(when.to_time());
                meta.deletion_grace_period_seconds = Some(grace);
            } else if graceful.is_none() {
                meta.deletion_grace_period_seconds = Some(0);
            }
            meta.finalizers = Some(finalizers).filter(|f| !f.is_empty());
            if (*current).clone().metadata() == object.metadata() {
                return Ok(Response::ok(200, current));
            }
            return self.write_deleting(&key, kind, object);
        }
        self.remove(&key, kind)
    }

    /// Stores an object a delete only marked (a deletion timestamp, finalizers, a phase).
    fn write_deleting(&mut self, key: &str, kind: &'static Kind, object: Object) -> Step<Response> {
        let entry = self
            .store
            .update(key, object, None)
            .map_err(|_| Box::new(status::not_found(kind, &self.request.name)))?
            .clone();
        self.record_persist(key, entry.mod_revision, &entry.object);
        self.push_last_change();
        Ok(Response::ok(200, entry.object))
    }

    /// Deletes `key` from etcd (`deleteWithoutFinalizers`); answers with its last state.
    fn remove(&mut self, key: &str, kind: &'static Kind) -> Step<Response> {
        let req = self.request;
        let key = key.to_owned();
        let last = self
            .store
            .delete(&key)
            .map_err(|_| Box::new(status::not_found(kind, &req.name)))?;
        self.records.push(Record::message(
            Actor::ApiServer,
            Actor::Etcd,
            format!("delete {key}"),
        ));
        let mut stage = Stage::new(
            Actor::Etcd,
            StageName::Persist,
            Outcome::Delete,
            format!("deleted {key} at revision {}", self.store.revision()),
        );
        stage.extra_mut().key = Some(key.clone());
        stage.extra_mut().revision = Some(self.store.revision());
        self.stage(stage);
        self.push_last_change();
        Ok(Response::ok(200, last))
    }

    /// The mutating admission phase: one record per plugin that handles the
    /// request, from plugin number `from` on, whose pass is `attempt` (`(0, 1)`
    /// but for a parked create resumed). A plugin that waits parks the request.
    fn admit(
        &mut self,
        op: Operation,
        user: &UserInfo,
        object: &mut Object,
        old: Option<&Object>,
        (from, attempt): (usize, u32),
    ) -> Step<()> {
        let req = self.request;
        for (index, plugin) in self.server.admission.iter().enumerate().skip(from) {
            if !plugin.mutating() || !plugin.handles(op, req.kind, req.subresource.as_deref()) {
                continue;
            }
            let name = object.name().to_owned();
            let namespace = object
                .namespace()
                .or(req.namespace.as_deref())
                .map(str::to_owned);
            let resumed = index == from && from > 0;
            let retry_ms = self.retry_ms.filter(|_| resumed).unwrap_or(0);
            let areq = AdmissionRequest {
                operation: op,
                kind: req.kind,
                subresource: req.subresource.as_deref(),
                namespace: namespace.as_deref(),
                name: &name,
                user,
                old,
                cluster: &*self.store,
                attempt: if resumed { attempt } else { 1 },
                retry_ms,
            };
            let verdict = plugin.admit(&areq, object, self.rng);
            let pass = areq.attempt;
            self.admission_record("mutating", plugin.name(), &verdict);
            if matches!(verdict, Verdict::Wait { .. })
                && let Some(Record::Stage(stage)) = self.records.pop()
            {
                // The waiting stage names the object, which the trace's
                // readers need: this handling ends with no answer.
                let mut stage = (*stage).clone();
                let namespace = namespace.as_deref().unwrap_or_default();
                stage.extra_mut().pod = Some(format!("{namespace}/{name}"));
                self.stage(stage);
            }
            match verdict {
                Verdict::Deny(status) => return Err(Box::new(status)),
                Verdict::Wait { retry_ms, detail } => {
                    if !(plugin.may_wait() && op == Operation::Create) {
                        // Only a create may wait; anything else is refused.
                        return Err(Box::new(status::internal_error(detail)));
                    }
                    // A plugin that waits has changed nothing (`Plugin::may_wait`).
                    self.parked = Some(Box::new(Parked {
                        user: user.clone(),
                        object: object.clone(),
                        plugin: index,
                        attempt: pass + 1,
                        retry_ms,
                        generated_name: self.generated_name,
                    }));
                    return Err(Box::new(Status::default()));
                }
                Verdict::Allow | Verdict::Mutate(_) => {}
            }
        }
        Ok(())
    }

    /// The validating admission phase; returns the extra writes plugins asked for.
    fn admit_validating(
        &mut self,
        op: Operation,
        user: &UserInfo,
        object: &Object,
        old: Option<&Object>,
    ) -> Step<SideEffects> {
        let req = self.request;
        let mut effects = SideEffects::default();
        for plugin in self.server.admission {
            if !plugin.validating() || !plugin.handles(op, req.kind, req.subresource.as_deref()) {
                continue;
            }
            let areq = AdmissionRequest {
                operation: op,
                kind: req.kind,
                subresource: req.subresource.as_deref(),
                namespace: object.namespace().or(req.namespace.as_deref()),
                name: object.name(),
                user,
                old,
                cluster: &*self.store,
                attempt: 1,
                retry_ms: 0,
            };
            let verdict = plugin.validate(&areq, object, &mut effects);
            self.admission_record("validating", plugin.name(), &verdict);
            if let Verdict::Deny(status) = verdict {
                return Err(Box::new(status));
            }
        }
        Ok(effects)
    }

    fn admission_record(&mut self, phase: &'static str, plugin: &'static str, verdict: &Verdict) {
        let (outcome, detail) = match verdict {
            Verdict::Allow => (Outcome::Allow, String::new()),
            Verdict::Mutate(detail) => (Outcome::Mutate, detail.clone()),
            Verdict::Deny(status) => (Outcome::Deny, status.message.clone().unwrap_or_default()),
            Verdict::Wait { detail, .. } => (Outcome::Waiting, detail.clone()),
        };
        let mut stage =
            Stage::new(Actor::ApiServer, StageName::Admission, outcome, detail).plugin(plugin);
        stage.phase = Some(phase.into());
        self.stage(stage);
    }

    fn validate(
        &mut self,
        check: impl Fn(&Object) -> Vec<podflow_model::status::FieldError>,
        object: &Object,
    ) -> Step<()> {
        let errors = check(object);
        if errors.is_empty() {
            self.stage(Stage::new(
                Actor::ApiServer,
                StageName::Validation,
                Outcome::Allow,
                format!("{} is valid", object.kind().kind),
            ));
            return Ok(());
        }
        let status = status::invalid(object.kind(), object.name(), &errors);
        self.stage(Stage::new(
            Actor::ApiServer,
            StageName::Validation,
            Outcome::Deny,
            status.message.clone().unwrap_or_default(),
        ));
        Err(Box::new(status))
    }

    /// Writes an object another step asked for (a quota's usage), unconditionally.
    fn persist_update(&mut self, object: Object) {
        let key = key_for(object.kind(), object.namespace(), object.name());
        let written = if self.store.get(&key).is_some() {
            self.store.update(&key, object, None)
        } else {
            self.store.create(&key, object)
        };
        if let Ok(entry) = written {
            let entry = entry.clone();
            self.record_persist(&key, entry.mod_revision, &entry.object);
            self.push_last_change();
        }
    }

    fn record_persist(&mut self, key: &str, revision: u64, object: &Object) {
        self.records.push(Record::message(
            Actor::ApiServer,
            Actor::Etcd,
            format!("txn put {key}"),
        ));
        let mut stage = Stage::new(
            Actor::Etcd,
            StageName::Persist,
            Outcome::Ok,
            format!("wrote {key} at revision {revision}"),
        );
        stage.extra_mut().key = Some(key.to_owned());
        stage.extra_mut().revision = Some(revision);
        if self.server.detail == Detail::Full {
            stage.extra_mut().object = Some(object.to_json());
        }
        self.stage(stage);
    }

    fn push_last_change(&mut self) {
        let rev = self.store.revision();
        if let Ok(mut changes) = self.store.changes_since(rev - 1)
            && let Some(change) = changes.next()
        {
            self.changes.push(change.clone());
        }
    }
}

#[cfg(test)]
#[path = "handler_tests.rs"]
mod tests;
