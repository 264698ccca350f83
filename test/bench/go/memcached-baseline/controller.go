package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// The reconcile logic of the kubebuilder/operator-sdk Memcached guide, step by step, so the benchmark
// measures what that guide ships: a status write before anything else, a finalizer, a Deployment created
// with the CR's name, replicas corrected with an Update, and one status write with Available=True.

const memcachedFinalizer = "cache.example.com/finalizer"

const (
	typeAvailable = "Available"
	typeDegraded  = "Degraded"
)

type MemcachedReconciler struct {
	client.Client
	Scheme   *runtime.Scheme
	Recorder events.EventRecorder
	// OwnServiceAndPDB: keep our operator's Service, PodDisruptionBudget and spread as well (owned.go).
	OwnServiceAndPDB bool
	// ObservedGeneration: write the Memcached's generation into each condition it sets, as our operator does,
	// so a reader (kubectl wait, the benchmark) can tell a report of the current spec from one of an older.
	ObservedGeneration bool
}

// setCondition is the guide's meta.SetStatusCondition, with the generation it describes when asked for.
func (r *MemcachedReconciler) setCondition(memcached *Memcached, condition metav1.Condition) {
	if r.ObservedGeneration {
		condition.ObservedGeneration = memcached.Generation
	}
	meta.SetStatusCondition(&memcached.Status.Conditions, condition)
}

func (r *MemcachedReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)

	memcached := &Memcached{}
	if err := r.Get(ctx, req.NamespacedName, memcached); err != nil {
		if apierrors.IsNotFound(err) {
			log.Info("memcached resource not found. Ignoring since object must be deleted")
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}

	if len(memcached.Status.Conditions) == 0 {
		r.setCondition(memcached, metav1.Condition{
			Type: typeAvailable, Status: metav1.ConditionUnknown, Reason: "Reconciling", Message: "Starting reconciliation",
		})
		if err := r.Status().Update(ctx, memcached); err != nil {
			return ctrl.Result{}, err
		}
		// Read it again, so the next update does not fail with "the object has been modified".
		if err := r.Get(ctx, req.NamespacedName, memcached); err != nil {
			return ctrl.Result{}, err
		}
	}

	if !controllerutil.ContainsFinalizer(memcached, memcachedFinalizer) {
		controllerutil.AddFinalizer(memcached, memcachedFinalizer)
		if err := r.Update(ctx, memcached); err != nil {
			return ctrl.Result{}, err
		}
	}

	if memcached.GetDeletionTimestamp() != nil {
		if !controllerutil.ContainsFinalizer(memcached, memcachedFinalizer) {
			return ctrl.Result{}, nil
		}
		r.setCondition(memcached, metav1.Condition{
			Type: typeDegraded, Status: metav1.ConditionUnknown, Reason: "Finalizing",
			Message: fmt.Sprintf("Performing finalizer operations for the custom resource: %s ", memcached.Name),
		})
		if err := r.Status().Update(ctx, memcached); err != nil {
			return ctrl.Result{}, err
		}
		r.Recorder.Eventf(memcached, nil, corev1.EventTypeWarning, "Deleting", "Finalize",
			"Custom Resource %s is being deleted from the namespace %s", memcached.Name, memcached.Namespace)
		if err := r.Get(ctx, req.NamespacedName, memcached); err != nil {
			return ctrl.Result{}, err
		}
		r.setCondition(memcached, metav1.Condition{
			Type: typeDegraded, Status: metav1.ConditionTrue, Reason: "Finalizing",
			Message: fmt.Sprintf("Finalizer operations for custom resource %s name were successfully accomplished", memcached.Name),
		})
		if err := r.Status().Update(ctx, memcached); err != nil {
			return ctrl.Result{}, err
		}
		controllerutil.RemoveFinalizer(memcached, memcachedFinalizer)
		if err := r.Update(ctx, memcached); err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{}, nil
	}

	found := &appsv1.Deployment{}
	err := r.Get(ctx, types.NamespacedName{Name: memcached.Name, Namespace: memcached.Namespace}, found)
	if err != nil && apierrors.IsNotFound(err) {
		dep, err := r.deploymentForMemcached(memcached)
		if err != nil {
			r.setCondition(memcached, metav1.Condition{
				Type: typeAvailable, Status: metav1.ConditionFalse, Reason: "Reconciling",
				Message: fmt.Sprintf("Failed to create Deployment for the custom resource (%s): (%s)", memcached.Name, err),
			})
			if err := r.Status().Update(ctx, memcached); err != nil {
				return ctrl.Result{}, err
			}
			return ctrl.Result{}, err
		}
		if err := r.Create(ctx, dep); err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{RequeueAfter: time.Minute}, nil
	} else if err != nil {
		return ctrl.Result{}, err
	}

	// Before the Deployment's size: once a Deployment has its new size its PodDisruptionBudget exists, and
	// the benchmark, which waits for the Deployments, counts the PDB's work in the phase that caused it.
	if r.OwnServiceAndPDB {
		if err := r.reconcileServiceAndPDB(ctx, memcached, found); err != nil {
			return ctrl.Result{}, err
		}
	}

	size := memcached.Spec.Size
	if found.Spec.Replicas == nil || *found.Spec.Replicas != size {
		found.Spec.Replicas = &size
		if err := r.Update(ctx, found); err != nil {
			if err := r.Get(ctx, req.NamespacedName, memcached); err != nil {
				return ctrl.Result{}, err
			}
			r.setCondition(memcached, metav1.Condition{
				Type: typeAvailable, Status: metav1.ConditionFalse, Reason: "Resizing",
				Message: fmt.Sprintf("Failed to update the size for the custom resource (%s): (%s)", memcached.Name, err),
			})
			if err := r.Status().Update(ctx, memcached); err != nil {
				return ctrl.Result{}, err
			}
			return ctrl.Result{}, err
		}
		return ctrl.Result{Requeue: true}, nil //nolint:staticcheck // the guide requeues this way
	}

	r.setCondition(memcached, metav1.Condition{
		Type: typeAvailable, Status: metav1.ConditionTrue, Reason: "Reconciling",
		Message: fmt.Sprintf("Deployment for custom resource (%s) with %d replicas created successfully", memcached.Name, size),
	})
	if err := r.Status().Update(ctx, memcached); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}

// deploymentForMemcached builds the guide's Deployment. One deliberate difference: the selector also has
// app.kubernetes.io/instance. The guide's selector is the same for every Memcached, so with hundreds of them
// in one namespace every ReplicaSet would match every pod and kube-controller-manager, not the operator,
// would dominate the measurement.
func (r *MemcachedReconciler) deploymentForMemcached(m *Memcached) (*appsv1.Deployment, error) {
	image, found := os.LookupEnv("MEMCACHED_IMAGE")
	if !found {
		return nil, fmt.Errorf("unable to find MEMCACHED_IMAGE environment variable with the image")
	}
	tag := "latest"
	if i := strings.LastIndex(image, ":"); i >= 0 {
		tag = image[i+1:]
	}
	labels := map[string]string{
		"app.kubernetes.io/name":       "memcached-operator",
		"app.kubernetes.io/instance":   m.Name,
		"app.kubernetes.io/version":    tag,
		"app.kubernetes.io/managed-by": "MemcachedController",
	}
	port := int32(11211)
	if m.Spec.ContainerPort != nil {
		port = *m.Spec.ContainerPort
	}
	replicas := m.Spec.Size
	yes, no := true, false
	uid := int64(1001)
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   &yes,
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Containers: []corev1.Container{{
						Image:           image,
						Name:            "memcached",
						ImagePullPolicy: corev1.PullIfNotPresent,
						SecurityContext: &corev1.SecurityContext{
							RunAsNonRoot:             &yes,
							RunAsUser:                &uid,
							AllowPrivilegeEscalation: &no,
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
						Ports:   []corev1.ContainerPort{{ContainerPort: port, Name: "memcached"}},
						Command: []string{"memcached", "--memory-limit=64", "-o", "modern", "-v"},
					}},
				},
			},
		},
	}
	if r.OwnServiceAndPDB {
		dep.Spec.Template.Spec.TopologySpreadConstraints = spreadOverNodes(dep.Spec.Selector)
	}
	if err := ctrl.SetControllerReference(m, dep, r.Scheme); err != nil {
		return nil, err
	}
	return dep, nil
}

func (r *MemcachedReconciler) SetupWithManager(mgr ctrl.Manager) error {
	b := ctrl.NewControllerManagedBy(mgr).
		For(&Memcached{}).
		Named("memcached").
		Owns(&appsv1.Deployment{})
	if r.OwnServiceAndPDB {
		b = b.Owns(&corev1.Service{}).Owns(&policyv1.PodDisruptionBudget{})
	}
	return b.Complete(r)
}
