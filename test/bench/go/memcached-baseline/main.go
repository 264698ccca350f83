// memcached-baseline: the kubebuilder/operator-sdk "Getting Started" Memcached operator on
// controller-runtime, serving the same Memcached API as our operator. A measuring instrument for
// `nx run bench:converge`, never shipped.
package main

import (
	"flag"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

func main() {
	var metricsAddr, probeAddr string
	var ownServiceAndPDB, observedGeneration bool
	flag.StringVar(&metricsAddr, "metrics-bind-address", "0", "Address of the metrics endpoint (plain HTTP); 0 = off.")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "Address of the health probes.")
	flag.BoolVar(&ownServiceAndPDB, "own-service-and-pdb", false,
		"Also keep our operator's headless Service, PodDisruptionBudget and topology spread (owned.go).")
	flag.BoolVar(&observedGeneration, "observed-generation", false,
		"Write the Memcached's generation into each status condition, as our operator does.")
	opts := zap.Options{}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))
	log := ctrl.Log.WithName("setup")

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(addKnownTypes(scheme))

	// WATCH_NAMESPACE (comma-separated, empty = all), as our operator reads it, so both watch the same.
	cacheOptions := cache.Options{}
	if value := os.Getenv("WATCH_NAMESPACE"); value != "" {
		cacheOptions.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range strings.Split(value, ",") {
			if ns = strings.TrimSpace(ns); ns != "" {
				cacheOptions.DefaultNamespaces[ns] = cache.Config{}
			}
		}
	}

	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: metricsAddr},
		HealthProbeBindAddress: probeAddr,
		LeaderElection:         false,
		Cache:                  cacheOptions,
	})
	if err != nil {
		log.Error(err, "unable to start manager")
		os.Exit(1)
	}
	reconciler := &MemcachedReconciler{
		Client:   mgr.GetClient(),
		Scheme:   mgr.GetScheme(),
		Recorder: mgr.GetEventRecorder("memcached-controller"),

		OwnServiceAndPDB:   ownServiceAndPDB,
		ObservedGeneration: observedGeneration,
	}
	if err := reconciler.SetupWithManager(mgr); err != nil {
		log.Error(err, "unable to create controller", "controller", "Memcached")
		os.Exit(1)
	}
	utilruntime.Must(mgr.AddHealthzCheck("healthz", healthz.Ping))
	utilruntime.Must(mgr.AddReadyzCheck("readyz", healthz.Ping))
	log.Info("starting manager", "watchNamespace", os.Getenv("WATCH_NAMESPACE"))
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "problem running manager")
		os.Exit(1)
	}
}
