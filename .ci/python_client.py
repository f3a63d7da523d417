"""The official Kubernetes Python client against `podflow serve`.

Usage: python_client.py KUBECONFIG. Prints each check as `ok` or `FAIL`
and exits non-zero when any failed. Run by .ci/python-client.sh, which
starts the server (at --speed 20: a simulated minute is three seconds).
"""

import sys

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

failed = False


def check(name, passed, detail=""):
    global failed
    if passed:
        print(f"  ok    {name}")
    else:
        failed = True
        print(f"  FAIL  {name}: {detail}")


def status_of(call):
    """The HTTP status an API call ends with (200 when it succeeds)."""
    try:
        call()
        return 200, ""
    except ApiException as error:
        return error.status, error.body


def api_client(kubeconfig, context):
    return config.new_client_from_config(config_file=kubeconfig, context=context)


def pod(name, labels, image, command=None):
    container = {"name": name, "image": image}
    if command:
        container["command"] = command
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": labels},
        "spec": {"containers": [container]},
    }


def phases_until_running(core, selector, resource_version):
    """The phases a watch from `resource_version` sees, up to Running."""
    phases = []
    stream = watch.Watch()
    for event in stream.stream(
        core.list_namespaced_pod,
        "default",
        label_selector=selector,
        resource_version=resource_version,
        timeout_seconds=60,
    ):
        phases.append(event["object"].status.phase)
        if phases[-1] == "Running":
            stream.stop()
    return phases


def names_once_there_are(core, selector, count):
    """The names of the pods `selector` matches once there are `count`: the
    controllers create them in simulated time, so a watch from the list waits
    for them (at most 60 s), not a sleep."""
    listed = core.list_namespaced_pod("default", label_selector=selector)
    names = {p.metadata.name for p in listed.items}
    if len(names) < count:
        stream = watch.Watch()
        for event in stream.stream(
            core.list_namespaced_pod,
            "default",
            label_selector=selector,
            resource_version=listed.metadata.resource_version,
            timeout_seconds=60,
        ):
            name = event["object"].metadata.name
            if event["type"] == "DELETED":
                names.discard(name)
            else:
                names.add(name)
            if len(names) >= count:
                stream.stop()
    return sorted(names)


def main(kubeconfig):
    admin = api_client(kubeconfig, "podflow")
    core = client.CoreV1Api(admin)
    apps = client.AppsV1Api(admin)

    version = client.VersionApi(admin).get_code()
    check("version", version.git_version.startswith("v1."), version.git_version)

    nodes = core.list_node().items
    check("list nodes", len(nodes) >= 2, [n.metadata.name for n in nodes])

    listed = core.list_namespaced_pod("default")
    created = core.create_namespaced_pod("default", pod("nginx", {"app": "nginx"}, "nginx:1.27"))
    check("create pod", created.status.phase == "Pending", created.status.phase)

    phases = phases_until_running(core, "app=nginx", listed.metadata.resource_version)
    check("watch to Running", phases[:1] == ["Pending"] and phases[-1:] == ["Running"], phases)

    # A watch that allows bookmarks hears one within a simulated minute.
    kinds = []
    stream = watch.Watch()
    for event in stream.stream(
        core.list_namespaced_pod,
        "default",
        resource_version=core.list_namespaced_pod("default").metadata.resource_version,
        allow_watch_bookmarks=True,
        timeout_seconds=10,
    ):
        kinds.append(event["type"])
        if event["type"] == "BOOKMARK":
            stream.stop()
    check("watch bookmark", "BOOKMARK" in kinds, kinds)

    patched = core.patch_namespaced_pod("nginx", "default", {"metadata": {"labels": {"tier": "web"}}})
    check("strategic merge patch", patched.metadata.labels.get("tier") == "web", patched.metadata.labels)
    json_patched = core.patch_namespaced_pod(
        "nginx", "default", [{"op": "add", "path": "/metadata/annotations", "value": {"owner": "class"}}]
    )
    check("json patch", (json_patched.metadata.annotations or {}).get("owner") == "class", json_patched.metadata.annotations)

    # As on a real cluster, a container's log can be read once it has started.
    before = core.list_namespaced_pod("default").metadata.resource_version
    core.create_namespaced_pod(
        "default",
        pod("hello", {"app": "hello"}, "busybox:1.36", ["sh", "-c", "echo hello from podflow; sleep 3600"]),
    )
    code, body = status_of(lambda: core.read_namespaced_pod_log("hello", "default"))
    check("logs before the start", code == 400 and "is waiting to start" in body, f"{code} {body}")
    phases_until_running(core, "app=hello", before)
    log = core.read_namespaced_pod_log("hello", "default")
    check("logs", log == "hello from podflow\n", repr(log))

    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
            },
        },
    }
    apps.create_namespaced_deployment("default", deployment)
    scale = apps.patch_namespaced_deployment_scale("web", "default", {"spec": {"replicas": 3}})
    check("scale", scale.spec.replicas == 3, scale.spec.replicas)
    web = names_once_there_are(core, "app=web", 3)
    check("scaled pods", len(web) == 3, web)

    jane = client.CoreV1Api(api_client(kubeconfig, "jane@podflow"))
    code, _ = status_of(lambda: jane.list_namespaced_pod("dev"))
    check("token user may list in dev", code == 200, code)
    code, body = status_of(lambda: jane.list_namespaced_pod("default"))
    check(
        "token user refused in default",
        code == 403 and 'User \\"jane\\" cannot list resource \\"pods\\"' in body,
        f"{code} {body}",
    )

    core.delete_namespaced_pod("hello", "default", grace_period_seconds=0)
    code, body = status_of(lambda: core.read_namespaced_pod("nope", "default"))
    check("not found", code == 404 and 'pods \\"nope\\" not found' in body, f"{code} {body}")

    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
