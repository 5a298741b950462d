// Page-side half of the Fieldwork driver. Evaluated as one function per call (no state left on window except two
// symbol-keyed marks), so page scripts cannot swap the agent between calls.
//
// Refs look like "d<document>-g<generation>-<field>": the document number the driver stamped on this document,
// the form generation the page rendered (data-generation on the root), and the control's data-field name.
// A read also marks each reported node with its ref; an action resolves the ref back to the same node only if
// document, generation and node mark all still agree, so a re-rendered or replaced control is refused.
(request) => {
  "use strict";
  const DOCUMENT = Symbol.for("fieldwork.document");
  const MARK = Symbol.for("fieldwork.ref");
  const TEXT_LIMIT = 8000;
  const root = document.querySelector("[data-fieldwork-root]");

  const normalize = (text) => (text || "").replace(/\s+/g, " ").trim();
  const visible = (node) => {
    if (!node.isConnected || node.closest("[hidden]")) return false;
    const style = getComputedStyle(node);
    return style.visibility !== "hidden" && style.display !== "none" && node.getClientRects().length > 0;
  };

  function roleOf(node) {
    const tag = node.tagName;
    if (tag === "BUTTON") return "button";
    if (tag === "SELECT") return node.multiple ? "listbox" : "combobox";
    if (tag === "TEXTAREA") return "textbox";
    if (tag === "INPUT") {
      if (node.type === "checkbox") return "checkbox";
      if (node.type === "radio") return "radio";
      if (node.type === "range") return "slider";
      if (["button", "submit", "reset"].includes(node.type)) return "button";
      return "textbox";
    }
    return null;
  }

  function labelOf(node) {
    if (node.tagName === "BUTTON") return normalize(node.textContent);
    const aria = node.getAttribute("aria-label");
    if (aria) return normalize(aria);
    if (node.labels && node.labels.length) return normalize(node.labels[0].textContent);
    return node.dataset.field;
  }

  function describe(node, ref, includeValues) {
    const role = roleOf(node);
    const element = { ref, role, label: labelOf(node) };
    if (role === "checkbox" || role === "radio") element.checked = node.checked;
    if (role === "combobox" || role === "listbox") {
      element.options = Array.from(node.options).map((option) => {
        const entry = { label: normalize(option.textContent), value: option.value };
        if (role === "listbox") entry.selected = option.selected;
        return entry;
      });
      if (includeValues && role === "combobox") element.value = node.value;
    } else if (role === "textbox" || role === "slider") {
      if (includeValues) element.value = node.value;
    }
    return element;
  }

  function stamp() {
    if (document[DOCUMENT] === undefined) {
      Object.defineProperty(document, DOCUMENT, { value: request.document, enumerable: false });
      return true;
    }
    return false;
  }

  function generation() {
    return root ? root.getAttribute("data-generation") || "0" : null;
  }

  function controls() {
    return root ? Array.from(root.querySelectorAll("[data-field]")).filter((node) => roleOf(node) && visible(node)) : [];
  }

  function pageText() {
    // Line structure is kept (one normalized line per rendered line); a select's option list is not prose.
    const source = root || document.body;
    const lines = [];
    const walker = document.createTreeWalker(source, NodeFilter.SHOW_TEXT, {
      acceptNode: (node) => (node.parentElement && node.parentElement.closest("select, script, style")
        ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
    });
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || !visible(parent)) continue;
      const piece = normalize(node.textContent);
      if (piece) lines.push(piece);
    }
    const text = lines.join("\n");
    return text.length > TEXT_LIMIT ? { text: text.slice(0, TEXT_LIMIT), cut: true } : { text, cut: false };
  }

  if (request.op === "read") {
    if (!root) return { error: "not_fieldwork" };
    const stamped = stamp();
    const prefix = `d${document[DOCUMENT]}-g${generation()}-`;
    const elements = [];
    for (const node of controls()) {
      const ref = prefix + node.dataset.field;
      node[MARK] = ref;
      elements.push(describe(node, ref, request.values));
    }
    const { text, cut } = pageText();
    return { stamped, text, cut, elements };
  }

  if (request.op === "text") {
    if (!root) return { error: "not_fieldwork" };
    return pageText();
  }

  if (request.op === "resolve") {
    if (!root) return { error: "not_fieldwork" };
    const match = /^d(\d+)-g(\d+)-([a-z_]{1,64})$/.exec(request.ref);
    if (!match) return { error: "unknown_ref" };
    if (document[DOCUMENT] === undefined || String(document[DOCUMENT]) !== match[1]) return { error: "stale_ref" };
    if (generation() !== match[2]) return { error: "stale_ref" };
    const node = root.querySelector(`[data-field="${match[3]}"]`);
    if (!node || node[MARK] !== request.ref) return { error: "stale_ref" };
    if (!visible(node)) return { error: "hidden" };
    if (!request.roles.includes(roleOf(node))) return { error: "wrong_role" };
    if (node.disabled) return { error: "disabled" };
    return node;
  }

  return { error: "unknown_op" };
}
