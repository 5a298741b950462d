// A TypeScript driver with real type annotations: the kit runs it through Node's type stripping (22.6+) or tsx.
import { BrowserError } from "openai/helpers/browser";
import type { BrowserDriver, BrowserState } from "openai/helpers/browser";

interface Environment {
  start_url: string;
}

export function makeDriver(env: Environment): BrowserDriver {
  const state: BrowserState = { tabs: [{ id: "tab-1", title: "Typed", url: env.start_url, active: true }] };
  return {
    state: (): BrowserState => state,
    get_page_text: (_args: { tab_id: string | null }, _options: { signal: AbortSignal | undefined }): string =>
      "typed text",
    click: (_args: { target: string }, _options: { signal: AbortSignal | undefined }): never => {
      throw new BrowserError("That ref is unknown.");
    },
  };
}
