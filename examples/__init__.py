"""tfjs-examples programs ported to tfjs_grad with their structure intact (see README.md)."""
