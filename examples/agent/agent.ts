// A small deterministic support agent: it routes a request to local tools and answers.
// No model is involved, so the example runs offline and gives the same result every time.

export interface ToolCall {
  toolName: string;
  input?: unknown;
  output?: unknown;
}

/** One run of the agent: its reply, the tools it called in order, and a structured summary. */
export interface AgentRun {
  text: string;
  calls: ToolCall[];
  summary: { intent: string; orderId: string | null; refunded: boolean };
  latencyMs: number;
}

const orders = new Map([
  ["A-1001", { status: "shipped", amount: 42.5, carrier: "Colissimo" }],
  ["A-1002", { status: "delivered", amount: 19.9, carrier: "DHL" }],
  ["A-1003", { status: "lost", amount: 88, carrier: "UPS" }],
]);

const tools = {
  lookup_order(input: { orderId: string }) {
    return orders.get(input.orderId) ?? null;
  },
  refund(input: { orderId: string; amount: number }) {
    return { refundId: `R-${input.orderId}`, amount: input.amount };
  },
  search_docs(input: { query: string }) {
    return input.query.includes("return")
      ? "Items can be returned within 30 days."
      : "See the help centre for more.";
  },
};

type ToolName = keyof typeof tools;

/** Run the agent on one user message. */
export async function runAgent(message: string): Promise<AgentRun> {
  const started = performance.now();
  const calls: ToolCall[] = [];
  const call = <N extends ToolName>(toolName: N, input: Parameters<(typeof tools)[N]>[0]) => {
    const output = (tools[toolName] as (i: typeof input) => unknown)(input);
    calls.push({ toolName, input, output });
    return output;
  };
  const orderId = /\b[A-Z]-\d{4}\b/.exec(message)?.[0] ?? null;
  let text: string;
  let intent = "other";
  let refunded = false;
  if (orderId && /where|status|track/i.test(message)) {
    intent = "track";
    const order = call("lookup_order", { orderId }) as { status: string; carrier: string } | null;
    text = order
      ? `Order ${orderId} is ${order.status} (carrier: ${order.carrier}).`
      : `I could not find order ${orderId}.`;
  } else if (orderId && /refund|lost/i.test(message)) {
    intent = "refund";
    const order = call("lookup_order", { orderId }) as { status: string; amount: number } | null;
    if (order?.status === "lost") {
      call("refund", { orderId, amount: order.amount });
      refunded = true;
      text = `Order ${orderId} was lost; I refunded ${order.amount.toFixed(2)} EUR.`;
    } else {
      text = `Order ${orderId} is ${order?.status ?? "unknown"}, so it cannot be refunded yet.`;
    }
  } else {
    intent = "question";
    text = String(call("search_docs", { query: message.toLowerCase() }));
  }
  return {
    text,
    calls,
    summary: { intent, orderId, refunded },
    latencyMs: performance.now() - started,
  };
}
