//! bootstrap.cluster.x-k8s.io v1beta1 → v1beta2: KubeadmConfig and KubeadmConfigTemplate (the
//! KubeadmConfigSpec is shared with the kubeadm control plane).

use serde_json::{Map, Value};

use super::Context;
use super::fields::{
    default_false, drop_empty_string, drop_false, drop_if_empty, items_mut, object_mut, put, take, take_some,
};
use super::status;
use crate::convert::ConvertError;

type Object = Map<String, Value>;

pub(super) fn kubeadm_config(context: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    if let Some(spec) = object_mut(object, "spec") {
        kubeadm_config_spec(context, spec, "/spec")?;
    }
    status::kubeadm_config(context, object)
}

pub(super) fn kubeadm_config_template(context: &mut Context, object: &mut Object) -> Result<(), ConvertError> {
    let spec = object_mut(object, "spec").and_then(|s| object_mut(s, "template")).and_then(|t| object_mut(t, "spec"));
    if let Some(spec) = spec {
        kubeadm_config_spec(context, spec, "/spec/template/spec")?;
    }
    Ok(())
}

/// `extraArgs: {name: value}` → `extraArgs: [{name, value}]`, sorted by name then value, as
/// `ConvertToArgs` does.
fn args_to_list(map: &mut Object, key: &str, pointer: &str) -> Result<(), ConvertError> {
    let Some((position, args)) = take_some(map, key) else { return Ok(()) };
    let Value::Object(args) = args else {
        return Err(ConvertError::invalid(&format!("{pointer}/{key}"), "v1beta1 extra args must be a map of strings"));
    };
    let mut pairs = Vec::new();
    for (name, value) in args {
        let Value::String(value) = value else {
            return Err(ConvertError::invalid(
                &format!("{pointer}/{key}/{}", crate::json_pointer::escape_token(&name)),
                "an extra arg value must be a string (quote it)",
            ));
        };
        pairs.push((name, value));
    }
    pairs.sort();
    let list = pairs
        .into_iter()
        .map(|(name, value)| {
            let mut arg = Object::new();
            arg.insert("name".into(), Value::String(name));
            arg.insert("value".into(), Value::String(value));
            Value::Object(arg)
        })
        .collect();
    put(map, position, &[key], Value::Array(list));
    Ok(())
}

/// Drops `apiVersion`/`kind` that v1beta1 kubeadm configurations carried (TypeMeta).
fn drop_type_meta(context: &mut Context, map: &mut Object, pointer: &str) {
    for key in ["apiVersion", "kind"] {
        if take_some(map, key).is_some_and(|(_, v)| v.as_str().is_some_and(|s| !s.is_empty())) {
            context.dropped(&format!("{pointer}/{key}"), "v1beta2 kubeadm configurations have no type meta");
        }
    }
}

fn component(context: &Context, map: &mut Object, key: &str, pointer: &str) -> Result<(), ConvertError> {
    let Some(component) = object_mut(map, key) else { return Ok(()) };
    let pointer = format!("{pointer}/{key}");
    args_to_list(component, "extraArgs", &pointer)?;
    let restored_volumes = context.restored_at(&format!("{pointer}/extraVolumes")).cloned();
    for (_, volume) in items_mut(component, "extraVolumes") {
        let restored = matching(restored_volumes.as_ref(), "hostPath", volume.get("hostPath"));
        keep_restored_false(volume, "readOnly", restored.and_then(|v| v.get("readOnly")));
    }
    Ok(())
}

/// The item of a restored list whose `key` equals `value`.
fn matching<'a>(list: Option<&'a Value>, key: &str, value: Option<&Value>) -> Option<&'a Value> {
    list?.as_array()?.iter().find(|item| item.get(key) == value)
}

/// `Convert_bool_To_Pointer_bool`: a false stays only when the restored value is an explicit false.
fn keep_restored_false(map: &mut Object, key: &str, restored: Option<&Value>) {
    if restored == Some(&Value::Bool(false)) && !matches!(map.get(key), Some(Value::Bool(true))) {
        map.insert(key.to_string(), Value::Bool(false));
    } else {
        drop_false(map, key);
    }
}

fn node_registration(map: &mut Object, pointer: &str) -> Result<(), ConvertError> {
    let Some(registration) = object_mut(map, "nodeRegistration") else { return Ok(()) };
    args_to_list(registration, "kubeletExtraArgs", &format!("{pointer}/nodeRegistration"))?;
    if matches!(registration.get("taints"), Some(Value::Null)) {
        registration.shift_remove("taints");
    }
    drop_if_empty(map, "nodeRegistration");
    Ok(())
}

/// Sets `<configuration>.timeouts.<key>` at the end of the spec's configuration.
fn put_timeout(spec: &mut Object, configuration: &str, key: &str, seconds: Value) {
    let end = spec.len();
    put(spec, end, &[configuration, "timeouts", key], seconds);
}

/// `clusterConfiguration` (at `pointer`): the fields v1beta2 takes from the Cluster dropped, the components' extra
/// args as lists; returns the `apiServer.timeoutForControlPlane` it took out, in seconds.
fn convert_cluster_configuration(
    context: &mut Context,
    cluster: &mut Object,
    pointer: &str,
) -> Result<Option<Value>, ConvertError> {
    let mut control_plane_timeout = None;
    drop_type_meta(context, cluster, pointer);
    for key in ["networking", "kubernetesVersion", "clusterName"] {
        if let Some((_, value)) = take_some(cluster, key) {
            let empty = value.as_str().is_some_and(str::is_empty) || value.as_object().is_some_and(Map::is_empty);
            if !empty {
                context.dropped(&format!("{pointer}/{key}"), "v1beta2 takes it from the Cluster");
            }
        }
    }
    if let Some(api_server) = object_mut(cluster, "apiServer")
        && let Some((_, timeout)) = take_some(api_server, "timeoutForControlPlane")
    {
        control_plane_timeout =
            Some(context.seconds(&timeout, &format!("{pointer}/apiServer/timeoutForControlPlane"))?);
    }
    component(context, cluster, "apiServer", pointer)?;
    component(context, cluster, "controllerManager", pointer)?;
    component(context, cluster, "scheduler", pointer)?;
    if let Some(etcd) = object_mut(cluster, "etcd")
        && let Some(local) = object_mut(etcd, "local")
    {
        args_to_list(local, "extraArgs", &format!("{pointer}/etcd/local"))?;
    }
    for key in ["apiServer", "controllerManager", "scheduler", "dns", "etcd"] {
        drop_if_empty(cluster, key);
    }
    Ok(control_plane_timeout)
}

/// `joinConfiguration` (at `pointer`): node registration and discovery converted; returns the
/// `discovery.timeout` it took out, in seconds.
fn convert_join_configuration(
    context: &mut Context,
    join: &mut Object,
    pointer: &str,
) -> Result<Option<Value>, ConvertError> {
    let mut tls_bootstrap_timeout = None;
    drop_type_meta(context, join, pointer);
    node_registration(join, pointer)?;
    if let Some(discovery) = object_mut(join, "discovery") {
        if let Some((_, timeout)) = take_some(discovery, "timeout") {
            tls_bootstrap_timeout = Some(context.seconds(&timeout, &format!("{pointer}/discovery/timeout"))?);
        }
        let restored = |path: &str| context.restored_at(&format!("{pointer}/discovery/{path}")).cloned();
        if let Some(token) = object_mut(discovery, "bootstrapToken") {
            keep_restored_false(
                token,
                "unsafeSkipCAVerification",
                restored("bootstrapToken/unsafeSkipCAVerification").as_ref(),
            );
        }
        if let Some(kubeconfig) = object_mut(discovery, "file").and_then(|f| object_mut(f, "kubeConfig")) {
            if let Some(cluster) = object_mut(kubeconfig, "cluster") {
                let value = restored("file/kubeConfig/cluster/insecureSkipTLSVerify");
                keep_restored_false(cluster, "insecureSkipTLSVerify", value.as_ref());
            }
            if let Some(exec) = object_mut(kubeconfig, "user").and_then(|u| object_mut(u, "exec")) {
                let value = restored("file/kubeConfig/user/exec/provideClusterInfo");
                keep_restored_false(exec, "provideClusterInfo", value.as_ref());
            }
        }
    }
    Ok(tls_bootstrap_timeout)
}

/// RestoreKubeadmConfigSpec: the v1beta2-only timeouts come back from the conversion data, then
/// ConvertKubeadmConfigSpecV1Beta1ToHub overrides the two v1beta1 keeps elsewhere.
fn restore_timeouts(
    context: &Context,
    spec: &mut Object,
    pointer: &str,
    control_plane_timeout: Option<Value>,
    tls_bootstrap_timeout: Option<Value>,
) {
    for configuration in ["initConfiguration", "joinConfiguration"] {
        let restored = context.restored_at(&format!("{pointer}/{configuration}/timeouts")).cloned();
        if let Some(timeouts) = restored.filter(|t| t.as_object().is_some_and(|t| !t.is_empty())) {
            let end = spec.len();
            put(spec, end, &[configuration, "timeouts"], timeouts);
        }
    }
    if let Some(seconds) = control_plane_timeout.clone() {
        put_timeout(spec, "initConfiguration", "controlPlaneComponentHealthCheckSeconds", seconds);
    }
    if control_plane_timeout.is_some() || tls_bootstrap_timeout.is_some() {
        match control_plane_timeout {
            Some(seconds) => put_timeout(spec, "joinConfiguration", "controlPlaneComponentHealthCheckSeconds", seconds),
            None => {
                if let Some(timeouts) = object_mut(spec, "joinConfiguration").and_then(|j| object_mut(j, "timeouts")) {
                    timeouts.shift_remove("controlPlaneComponentHealthCheckSeconds");
                }
            }
        }
        if let Some(seconds) = tls_bootstrap_timeout {
            put_timeout(spec, "joinConfiguration", "tlsBootstrapSeconds", seconds);
        }
    }
}

pub(crate) fn kubeadm_config_spec(context: &mut Context, spec: &mut Object, pointer: &str) -> Result<(), ConvertError> {
    let control_plane_timeout = match object_mut(spec, "clusterConfiguration") {
        Some(cluster) => convert_cluster_configuration(context, cluster, &format!("{pointer}/clusterConfiguration"))?,
        None => None,
    };
    drop_if_empty(spec, "clusterConfiguration");
    if let Some(init) = object_mut(spec, "initConfiguration") {
        let pointer = format!("{pointer}/initConfiguration");
        drop_type_meta(context, init, &pointer);
        for (index, token) in items_mut(init, "bootstrapTokens") {
            context.move_seconds(token, &format!("{pointer}/bootstrapTokens/{index}"), "ttl", &["ttlSeconds"])?;
        }
        node_registration(init, &pointer)?;
    }
    let tls_bootstrap_timeout = match object_mut(spec, "joinConfiguration") {
        Some(join) => convert_join_configuration(context, join, &format!("{pointer}/joinConfiguration"))?,
        None => None,
    };
    restore_timeouts(context, spec, pointer, control_plane_timeout, tls_bootstrap_timeout);
    for key in ["initConfiguration", "joinConfiguration"] {
        drop_if_empty(spec, key);
    }
    let restored_files = context.restored_at(&format!("{pointer}/files")).cloned();
    for (_, file) in items_mut(spec, "files") {
        let restored = matching(restored_files.as_ref(), "path", file.get("path"));
        keep_restored_false(file, "append", restored.and_then(|f| f.get("append")));
    }
    for (_, user) in items_mut(spec, "users") {
        for key in ["gecos", "groups", "homeDir", "shell", "passwd", "primaryGroup", "sudo"] {
            drop_empty_string(user, key);
        }
    }
    if let Some(disk) = object_mut(spec, "diskSetup") {
        for (_, partition) in items_mut(disk, "partitions") {
            default_false(partition, "layout");
            drop_empty_string(partition, "tableType");
        }
        for (_, filesystem) in items_mut(disk, "filesystems") {
            drop_empty_string(filesystem, "partition");
            drop_empty_string(filesystem, "replaceFS");
        }
    }
    if let Some(config) = object_mut(spec, "ignition").and_then(|i| object_mut(i, "containerLinuxConfig")) {
        let restored = context.restored_at(&format!("{pointer}/ignition/containerLinuxConfig/strict")).cloned();
        keep_restored_false(config, "strict", restored.as_ref());
    }
    if let Some((_, retry)) = take(spec, "useExperimentalRetryJoin")
        && retry == Value::Bool(true)
    {
        context.dropped(&format!("{pointer}/useExperimentalRetryJoin"), "v1beta2 has no useExperimentalRetryJoin");
    }
    Ok(())
}
