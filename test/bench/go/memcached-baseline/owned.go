package main

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// With -own-service-and-pdb the guide's controller also keeps what our operator keeps besides the Deployment,
// written as a kubebuilder author would extend the guide (controllerutil.CreateOrUpdate, Owns): a headless
// Service from the first ready server on, a PodDisruptionBudget (maxUnavailable 1) while there is more than
// one server, and the servers spread over nodes. The control plane then does the same work for both fleets,
// so the benchmark compares the two runtimes rather than what each operator promises.

// spreadOverNodes is our operator's topology spread: it costs the scheduler per pod, so both fleets pay it.
func spreadOverNodes(selector *metav1.LabelSelector) []corev1.TopologySpreadConstraint {
	return []corev1.TopologySpreadConstraint{{
		MaxSkew:           1,
		TopologyKey:       "kubernetes.io/hostname",
		WhenUnsatisfiable: corev1.ScheduleAnyway,
		LabelSelector:     selector,
	}}
}

// reconcileServiceAndPDB brings the Service and the PodDisruptionBudget of one Memcached to what its
// Deployment needs; CreateOrUpdate writes only when the mutated object differs from the cached one.
func (r *MemcachedReconciler) reconcileServiceAndPDB(ctx context.Context, m *Memcached, dep *appsv1.Deployment) error {
	labels := dep.Spec.Selector.MatchLabels
	port := int32(11211)
	if m.Spec.ContainerPort != nil {
		port = *m.Spec.ContainerPort
	}

	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace}}
	serving := dep.Status.ReadyReplicas > 0
	if !serving {
		err := r.Get(ctx, client.ObjectKeyFromObject(svc), svc)
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		serving = err == nil
	}
	if serving {
		if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, svc, func() error {
			svc.Labels = labels
			svc.Spec.ClusterIP = corev1.ClusterIPNone
			svc.Spec.Selector = labels
			svc.Spec.Ports = []corev1.ServicePort{{
				Name: "memcached", Port: port, TargetPort: intstr.FromString("memcached"), Protocol: corev1.ProtocolTCP,
			}}
			return ctrl.SetControllerReference(m, svc, r.Scheme)
		}); err != nil {
			return err
		}
	}

	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace}}
	if m.Spec.Size <= 1 {
		err := r.Get(ctx, client.ObjectKeyFromObject(pdb), pdb)
		if err != nil {
			return client.IgnoreNotFound(err)
		}
		return client.IgnoreNotFound(r.Delete(ctx, pdb))
	}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, pdb, func() error {
		one := intstr.FromInt32(1)
		pdb.Labels = labels
		pdb.Spec.MaxUnavailable = &one
		pdb.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
		return ctrl.SetControllerReference(m, pdb, r.Scheme)
	})
	return err
}
