/**
 * `fetch` for calls the service makes to addresses a customer chose (integration vendors, an
 * identity provider): only addresses the URL policy allows, never a redirect followed, and a
 * time limit on each call.
 */
import { fetch as undiciFetch, type Dispatcher } from 'undici';
import { createPolicyAgent, urlRefusal, UrlPolicyError, type UrlPolicy } from './url-policy';

const agents = new Map<boolean, Dispatcher>();

/** One agent per policy for the process: connections are pooled across calls. */
function agentFor(policy: UrlPolicy): Dispatcher {
  let agent = agents.get(policy.allowPrivate);
  if (!agent) {
    agent = createPolicyAgent(policy);
    agents.set(policy.allowPrivate, agent);
  }
  return agent;
}

export function policyFetch(policy: UrlPolicy, timeoutMs: number): typeof fetch {
  const dispatcher = agentFor(policy);
  const guarded = async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = input instanceof Request ? input.url : String(input);
    const refused = urlRefusal(url, policy);
    if (refused) throw new UrlPolicyError(`${url}: ${refused}`);
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    return undiciFetch(url, { ...(init as Parameters<typeof undiciFetch>[1]), redirect: 'manual', signal, dispatcher });
  };
  return guarded;
}
