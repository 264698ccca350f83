// A CoreDNS with only the plugins the test cluster's DNS needs: cluster names from the API server, nothing
// forwarded anywhere else (a query for any other name is refused, so no DNS traffic leaves the machine).
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
)

// The order of the plugin chain, a subset of CoreDNS's own plugin.cfg order.
var directives = []string{"bind", "ready", "health", "errors", "log", "cache", "kubernetes"}

func main() {
	dnsserver.Directives = directives
	coremain.Run()
}
