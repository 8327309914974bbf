package simulated

import (
	"fmt"
	"net/netip"
)

// addressPool hands out the addresses of one prefix to load balancers. Its
// invariant: an address is in owner iff it is taken, and owner names the
// load balancer that holds it.
type addressPool struct {
	prefix netip.Prefix
	owner  map[netip.Addr]string
}

func newAddressPool(prefix netip.Prefix) *addressPool {
	return &addressPool{prefix: prefix.Masked(), owner: map[netip.Addr]string{}}
}

// usable reports whether addr may be handed out: inside the prefix, not the
// network's own address and, for an IPv4 prefix of more than two hosts, not
// its broadcast address.
func (p *addressPool) usable(addr netip.Addr) bool {
	if !p.prefix.Contains(addr) || addr == p.prefix.Addr() {
		return false
	}
	if addr.Is4() && p.prefix.Bits() < 31 {
		return addr.Next().IsValid() && p.prefix.Contains(addr.Next())
	}
	return true
}

// take gives owner the address it asked for (requested valid) or the lowest
// free one. An address owner already holds is given again.
func (p *addressPool) take(owner string, requested netip.Addr) (netip.Addr, error) {
	if requested.IsValid() {
		if !p.usable(requested) {
			return netip.Addr{}, fmt.Errorf("requested address %s is not in the load balancer pool %s", requested, p.prefix)
		}
		if held, taken := p.owner[requested]; taken && held != owner {
			return netip.Addr{}, fmt.Errorf("requested address %s is already used by load balancer %s", requested, held)
		}
		p.owner[requested] = owner
		return requested, nil
	}
	for addr := p.prefix.Addr().Next(); p.prefix.Contains(addr); addr = addr.Next() {
		if _, taken := p.owner[addr]; !taken && p.usable(addr) {
			p.owner[addr] = owner
			return addr, nil
		}
	}
	return netip.Addr{}, fmt.Errorf("the load balancer pool %s has no free address (%d in use)", p.prefix, len(p.owner))
}

// release gives addr back, if owner holds it.
func (p *addressPool) release(owner string, addr netip.Addr) {
	if p.owner[addr] == owner {
		delete(p.owner, addr)
	}
}
