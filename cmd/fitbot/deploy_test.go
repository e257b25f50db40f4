package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"slices"
	"testing"

	"go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// TestKubernetesManifest reads deploy/kubernetes.yaml into the API's own
// types (unknown fields refused) and checks that it runs two replicas
// with a disruption budget, that fitbot's ClusterRole
// only lists nodes and pods, that the Deployment runs as the service
// account bound to it, and that it reads the cluster it runs in.
func TestKubernetesManifest(t *testing.T) {
	raw, err := os.ReadFile("../../deploy/kubernetes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	kinds := map[string]int{}
	var role rbacv1.ClusterRole
	var binding rbacv1.ClusterRoleBinding
	var deploy appsv1.Deployment
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		kind, _ := doc["kind"].(string)
		kinds[kind]++
		var into any
		switch kind {
		case "ClusterRole":
			into = &role
		case "ClusterRoleBinding":
			into = &binding
		case "Deployment":
			into = &deploy
		case "ServiceAccount":
			into = &corev1.ServiceAccount{}
		case "Secret":
			into = &corev1.Secret{}
		case "Service":
			into = &corev1.Service{}
		case "PodDisruptionBudget":
			into = &policyv1.PodDisruptionBudget{}
		default:
			t.Errorf("unexpected kind %q", kind)
			continue
		}
		js, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		d := json.NewDecoder(bytes.NewReader(js))
		d.DisallowUnknownFields()
		if err := d.Decode(into); err != nil {
			t.Errorf("%s: %v", kind, err)
		}
	}
	if kinds["ClusterRole"] != 1 || kinds["ClusterRoleBinding"] != 1 || kinds["Deployment"] != 1 || kinds["PodDisruptionBudget"] != 1 {
		t.Fatalf("kinds = %v", kinds)
	}
	if deploy.Spec.Replicas == nil || *deploy.Spec.Replicas != 2 {
		t.Errorf("the Deployment runs %v replicas, want 2", deploy.Spec.Replicas)
	}
	for _, r := range role.Rules {
		if !slices.Equal(r.Verbs, []string{"list"}) || !slices.Equal(r.APIGroups, []string{""}) || len(r.ResourceNames) > 0 || len(r.NonResourceURLs) > 0 {
			t.Errorf("rule %+v: fitbot's role may only list core objects", r)
		}
		for _, res := range r.Resources {
			if res != "nodes" && res != "pods" {
				t.Errorf("the role grants %q: only nodes and pods", res)
			}
		}
	}
	if binding.RoleRef.Name != role.Name || len(binding.Subjects) != 1 || binding.Subjects[0].Name != deploy.Spec.Template.Spec.ServiceAccountName {
		t.Errorf("the binding %+v does not give role %q to the Deployment's service account %q", binding, role.Name, deploy.Spec.Template.Spec.ServiceAccountName)
	}
	env := map[string]string{}
	for _, e := range deploy.Spec.Template.Spec.Containers[0].Env {
		env[e.Name] = e.Value
	}
	if env["FITBOT_CLUSTER"] != "kubernetes" {
		t.Errorf("the Deployment's FITBOT_CLUSTER = %q, want kubernetes", env["FITBOT_CLUSTER"])
	}
	if err := checkClusterKind(env["FITBOT_CLUSTER"]); err != nil {
		t.Error(err)
	}
}
