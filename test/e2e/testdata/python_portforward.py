"""Forward ports with the official Kubernetes Python client (Debian's
python3-kubernetes), which speaks port-forward's WebSocket channel protocol
(v4.channel.k8s.io), not kubectl's SPDY.

Usage: python3 python_portforward.py KUBECONFIG NAMESPACE POD OPEN_PORT CLOSED_PORT

Prints one line per step, "<step>: <what it saw>"; test/e2e/portforward_test.go
compares them with what the pod should answer.
"""

import sys

from kubernetes import client, config
from kubernetes.stream import portforward


def step(name, detail):
    print(f"{name}: {detail}", flush=True)


def exchange(api, namespace, pod, port, request):
    """Sends request through a forward to port and returns (answer, error)."""
    pf = portforward(api.connect_get_namespaced_pod_portforward, pod, namespace, ports=str(port))
    sock = pf.socket(port)
    sock.setblocking(True)
    try:
        sock.sendall(request)
    except (BrokenPipeError, ConnectionResetError):
        # A refused port's error can arrive first; the client then closes
        # its end of the socket before the request is written.
        pass
    answer = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        answer += chunk
    sock.close()
    return answer.decode(errors="replace"), pf.error(port)


def main():
    kubeconfig, namespace, pod, open_port, closed_port = sys.argv[1:6]
    config.load_kube_config(config_file=kubeconfig)
    api = client.CoreV1Api()

    request = b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    answer, error = exchange(api, namespace, pod, int(open_port), request)
    head, _, body = answer.partition("\r\n\r\n")
    lines = head.split("\r\n")
    server = next((l.split(":", 1)[1].strip() for l in lines[1:] if l.lower().startswith("server:")), None)
    step("open port", f"{lines[0]} server={server} welcome={'Welcome to nginx!' in body} "
         f"pod={'<b>' + pod + '</b>' in body} error={error}")

    answer, error = exchange(api, namespace, pod, int(closed_port), request)
    refused = error is not None and "connection refused" in error
    step("closed port", f"answer={answer!r} error={(error or '').split(', uid')[0]} refused={refused}")


if __name__ == "__main__":
    main()
