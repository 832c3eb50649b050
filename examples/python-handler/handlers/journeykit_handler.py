"""Write a JourneyKit step handler in Python, with the standard library only.

JourneyKit starts the program a project file declares under `handlers:` and speaks JSON-RPC 2.0
with it, one message per line on its standard input and output (docs/handler-protocol.md).
This module does the talking; a handler is one function that gets a `Step` and returns the
outcome's name and its data:

    from journeykit_handler import serve

    def run(step):
        action, values = step.ask()
        if action:
            return action, {}
        return "greeted", {"name": values["name"]}

    serve(run)

Anything the handler prints goes to standard error (standard output carries the protocol), and
JourneyKit quotes the last lines of standard error when a step fails. An exception fails the
step with its message; JourneyKit shows any secret the program was given as •••.
"""

import json
import sys

PROTOCOL_VERSION = 1
REQUEST_CANCELLED = -32800


class Cancelled(Exception):
    """The step ended while the handler waited for JourneyKit (the app restarted, an input was
    refused). Let it propagate: `serve` answers the step and waits for the next."""


class Step:
    """One step of a journey, as `step/run` gives it, with the requests a handler can make
    while it runs."""

    def __init__(self, connection, params):
        self._connection = connection
        self.journey = params["journey"]
        self.step = params["step"]
        self.parameters = params["parameters"]
        self.secret = set(params.get("secret", []))
        self.inputs = params.get("inputs", [])
        self.outcomes = params.get("outcomes", [])
        self.screen = params.get("screen")

    def ask(self, *inputs):
        """Asks the driver (a scenario's script, or a person) for the step's inputs, or only
        those named. Returns (action, values): the screen action pressed, or None, and every
        value given, secrets included."""
        params = {"inputs": list(inputs)} if inputs else {}
        result = self._connection.call("driver/ask", params)
        return result["action"], result["values"]

    def stored(self, key):
        """The value the device stores under `key`, or None."""
        return self._connection.call("store/get", {"key": key})["value"]

    def store(self, key, value):
        """Stores `value` under `key` on the device (None removes it)."""
        self._connection.call("store/set", {"key": key, "value": value})

    def stored_keys(self):
        return self._connection.call("store/keys", {})["keys"]

    def now(self):
        """The journey's virtual clock, in milliseconds since 1970: the only time to use."""
        return self._connection.call("clock/now", {})["now"]

    def wait(self, milliseconds, reason):
        """Lets time pass on the virtual clock (recorded in the transcript)."""
        self._connection.call("clock/wait", {"milliseconds": milliseconds, "reason": reason})

    def charge_attempt(self):
        """Charges the step's attempt limit now, before a secret is compared, so that no restart
        can give a failed attempt back."""
        self._connection.call("attempt/charge", {})


class _Connection:
    def __init__(self, reader, writer):
        self._reader = reader
        self._writer = writer
        self._next = 0

    def send(self, message):
        message["jsonrpc"] = "2.0"
        self._writer.write(json.dumps(message, separators=(",", ":")) + "\n")
        self._writer.flush()

    def receive(self):
        line = self._reader.readline()
        if not line:
            return None
        return json.loads(line)

    def call(self, method, params):
        self._next += 1
        request_id = "py-%d" % self._next
        self.send({"id": request_id, "method": method, "params": params})
        message = self.receive()
        if message is None:
            raise EOFError("JourneyKit closed the connection")
        if message.get("id") != request_id:
            raise RuntimeError("JourneyKit answered another request than '%s'" % method)
        error = message.get("error")
        if error:
            if error["code"] == REQUEST_CANCELLED:
                raise Cancelled(error["message"])
            raise RuntimeError("%s: %s" % (method, error["message"]))
        return message["result"]


def serve(run, reader=None, writer=None):
    """Answers JourneyKit until it says `exit` or closes the program's input. `run(step)` runs
    one step and returns (outcome, data)."""
    connection = _Connection(reader or sys.stdin, writer or sys.stdout)
    while True:
        message = connection.receive()
        if message is None:
            return
        method = message.get("method")
        request_id = message.get("id")
        if method == "initialize":
            connection.send({"id": request_id, "result": {"protocolVersion": PROTOCOL_VERSION}})
        elif method == "step/run":
            try:
                outcome, data = run(Step(connection, message["params"]))
            except Cancelled as cancelled:
                connection.send({"id": request_id, "error": {"code": REQUEST_CANCELLED, "message": str(cancelled)}})
            except Exception as failure:  # the step fails with the message; the program goes on
                connection.send({"id": request_id, "error": {"code": -32000, "message": str(failure)}})
            else:
                connection.send({"id": request_id, "result": {"outcome": outcome, "data": data}})
        elif method == "shutdown":
            connection.send({"id": request_id, "result": None})
        elif method == "exit":
            return
        elif request_id is not None:
            connection.send({"id": request_id, "error": {"code": -32601, "message": "no method '%s'" % method}})
