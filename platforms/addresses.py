"""Where a platform's webhooks may go: public unicast addresses, and nothing that leads back
into the service's own networks.

The table below is the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and its
updates), plus multicast and the transition prefixes that embed an IPv4 address (NAT64, 6to4,
Teredo, IPv4-mapped and -compatible): through a translator or relay those reach whatever IPv4
address they carry, private ones included. `ipaddress`' own `is_global` is asked as well, but it
counts NAT64 as global and, before Python 3.12.4, more than that; the table does not depend on
the Python version.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import cast

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

SPECIAL_PURPOSE = tuple(ipaddress.ip_network(network) for network in (
    # IPv4 (iana-ipv4-special-registry)
    "0.0.0.0/8",  # "this network"
    "10.0.0.0/8",  # private
    "100.64.0.0/10",  # shared address space (carrier-grade NAT)
    "127.0.0.0/8",  # loopback
    "169.254.0.0/16",  # link-local: the clouds' metadata services
    "172.16.0.0/12",  # private
    "192.0.0.0/24",  # IETF protocol assignments
    "192.0.2.0/24",  # documentation (TEST-NET-1)
    "192.31.196.0/24",  # AS112-v4
    "192.52.193.0/24",  # AMT
    "192.88.99.0/24",  # deprecated 6to4 relay anycast
    "192.168.0.0/16",  # private
    "192.175.48.0/24",  # direct delegation AS112
    "198.18.0.0/15",  # benchmarking
    "198.51.100.0/24",  # documentation (TEST-NET-2)
    "203.0.113.0/24",  # documentation (TEST-NET-3)
    "224.0.0.0/4",  # multicast
    "240.0.0.0/4",  # reserved, and 255.255.255.255 broadcast
    # IPv6 (iana-ipv6-special-registry)
    "::/96",  # unspecified, loopback and the deprecated IPv4-compatible addresses
    "::ffff:0:0/96",  # IPv4-mapped
    "::ffff:0:0:0/96",  # IPv4-translated (SIIT)
    "64:ff9b::/96",  # NAT64, well-known prefix
    "64:ff9b:1::/48",  # NAT64, local-use
    "100::/64",  # discard-only
    "100:0:0:1::/64",  # dummy prefix
    "2001::/23",  # IETF protocol assignments, Teredo (2001::/32) among them
    "2001:db8::/32",  # documentation
    "2002::/16",  # 6to4
    "3fff::/20",  # documentation
    "5f00::/16",  # segment routing (SRv6) SIDs
    "fc00::/7",  # unique local
    "fe80::/10",  # link-local
    "fec0::/10",  # deprecated site-local
    "ff00::/8",  # multicast
))


class AddressNotAllowed(ValueError):
    """A webhook URL's host is, or resolves to, an address the service does not send to."""


def is_public(address: Address) -> bool:
    return address.is_global and not any(
        address.version == network.version and address in network
        for network in SPECIAL_PURPOSE
    )


def public_addresses(host: str) -> list[Address]:
    """Every address ``host`` (a name or an address) resolves to, in the resolver's order;
    AddressNotAllowed when it resolves to none, or to any that is not public (one private
    answer among public ones is refused, not skipped: the name is pointing inwards)."""
    addresses = resolve(host)
    for address in addresses:
        if not is_public(address):
            raise AddressNotAllowed(f"{host} resolves to {address}, not a public address")
    return addresses


def resolve(host: str) -> list[Address]:
    """``host``'s addresses, looked up once (the caller connects to one of these, never to
    the name: a second lookup could answer differently)."""
    try:
        return [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        pass
    try:
        # A host name resolves to IPv4 and IPv6 socket addresses: their first item is the
        # address's text (typeshed's sockaddr also allows other families' tuples).
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError) as failure:
        raise AddressNotAllowed(f"cannot resolve {host}: {failure}") from None
    found: list[Address] = []
    for info in infos:
        address = ipaddress.ip_address(cast(str, info[4][0]).split("%")[0])
        if address not in found:
            found.append(address)
    if not found:
        raise AddressNotAllowed(f"{host} has no address")
    return found
