// Page agent of the reference browser driver, injected into every document before the page's own scripts.
//
// It is the only code that reads the DOM. It turns a document into the seven BrowserReadV1 roles, keeps the
// ref registry for this document (a new document gets a new token, so old refs cannot resolve), and turns a ref
// into viewport coordinates that the driver then clicks with trusted Playwright input. The Python side wraps this
// file as `(<file>)(NAME)`: NAME is an unguessable per-driver property, defined non-enumerable and read-only so a
// page cannot replace the agent by assigning to it.
(function (NAME) {
  "use strict";
  if (Object.prototype.hasOwnProperty.call(window, NAME)) return;

  const ROLES = new Set(["button", "textbox", "combobox", "checkbox", "radio", "slider", "listbox"]);
  const UNSUPPORTED = "unsupported";
  const FRAME = "frame";
  const token = (Math.random().toString(36) + "0000").slice(2, 6);
  const registry = new Map(); // ref -> WeakRef(element)
  const issued = new WeakMap(); // element -> ref, so a control keeps its ref for the life of the document
  let counter = 0;
  // Captured before the page's scripts run, so a page that replaces JSON.stringify cannot forge a report.
  const stringify = JSON.stringify;
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();

  function wellFormed(text) {
    const value = String(text == null ? "" : text);
    return typeof value.toWellFormed === "function" ? value.toWellFormed() : value;
  }
  function normalize(text) {
    return wellFormed(text).replace(/\s+/g, " ").trim();
  }
  // Cut to at most `limit` UTF-8 bytes without splitting a character.
  function clip(text, limit) {
    const data = encoder.encode(text);
    if (data.length <= limit) return { text, clipped: false };
    let cut = limit;
    while (cut > 0 && (data[cut] & 0xc0) === 0x80) cut -= 1;
    return { text: decoder.decode(data.subarray(0, cut)), clipped: true };
  }
  function byteLength(text) {
    return encoder.encode(text).length;
  }

  // Refs are "<document token>.<counter>" for controls and "<document token>.S<counter>" for sections: short,
  // because a read of a large form carries thousands of them, and unique to this document.
  function refFor(element, kind) {
    const prefix = kind === "s" ? "S" : "";
    let ref = issued.get(element);
    if (ref && ref.startsWith(token + "." + prefix) && (prefix || ref.charAt(token.length + 1) !== "S")) return ref;
    counter += 1;
    ref = token + "." + prefix + counter.toString(36);
    issued.set(element, ref);
    registry.set(ref, new WeakRef(element));
    return ref;
  }

  function rendered(element) {
    return element.checkVisibility({ visibilityProperty: true, opacityProperty: false });
  }
  function visible(element) {
    if (!element.isConnected || !rendered(element)) return false;
    const rect = element.getBoundingClientRect();
    return rect.width > 0 && rect.height > 0;
  }

  function roleOf(element) {
    const explicit = (element.getAttribute("role") || "").trim().split(/\s+/)[0];
    if (explicit) {
      if (ROLES.has(explicit)) return explicit;
      if (explicit === "switch") return "checkbox";
      if (explicit === "searchbox" || explicit === "spinbutton") return "textbox";
      // The seven roles have no link or menu item; they are activated like buttons.
      if (explicit === "link" || explicit === "menuitem" || explicit === "tab") return "button";
    }
    switch (element.localName) {
      case "button":
      case "summary":
        return "button";
      case "a":
        return element.hasAttribute("href") ? "button" : null;
      case "select":
        return element.multiple || element.size > 1 ? "listbox" : "combobox";
      case "textarea":
        return "textbox";
      case "input": {
        const type = element.type;
        if (type === "hidden") return null;
        if (type === "button" || type === "submit" || type === "reset" || type === "image") return "button";
        if (type === "checkbox") return "checkbox";
        if (type === "radio") return "radio";
        if (type === "range") return "slider";
        if (type === "file" || type === "color") return UNSUPPORTED;
        return "textbox";
      }
      case "iframe":
      case "frame":
      case "object":
      case "embed":
        return FRAME;
      case "video":
      case "audio":
        return element.hasAttribute("controls") ? UNSUPPORTED : null;
      default:
        break;
    }
    if (element.isContentEditable && !(element.parentElement && element.parentElement.isContentEditable)) {
      return "textbox";
    }
    return null;
  }

  function textOfIds(ids) {
    return ids
      .split(/\s+/)
      .map((id) => {
        const node = id ? document.getElementById(id) : null;
        return node ? node.textContent : "";
      })
      .join(" ");
  }

  // The text of a <label>, without the control it wraps: a select inside its label would otherwise lend the
  // label every option's text ("Choice Alpha Beta" where the accessible name is "Choice").
  function labelText(labelNode, control) {
    if (!labelNode.contains(control)) return labelNode.innerText;
    const pieces = [];
    const stack = [labelNode];
    while (stack.length) {
      const node = stack.pop();
      if (node === control) continue;
      if (node.nodeType === Node.TEXT_NODE) {
        pieces.push(node.data);
        continue;
      }
      if (node.nodeType !== Node.ELEMENT_NODE || !node.checkVisibility()) continue;
      if (["select", "textarea", "input"].includes(node.localName)) continue;
      for (let index = node.childNodes.length - 1; index >= 0; index -= 1) stack.push(node.childNodes[index]);
    }
    return pieces.join(" ");
  }

  function labelOf(element, role) {
    let label = "";
    const labelledBy = element.getAttribute("aria-labelledby");
    if (labelledBy) label = normalize(textOfIds(labelledBy));
    if (!label) label = normalize(element.getAttribute("aria-label"));
    if (!label && element.labels && element.labels.length) {
      label = normalize(Array.from(element.labels, (node) => labelText(node, element)).join(" "));
    }
    if (!label && element.localName === "input") {
      if (["button", "submit", "reset"].includes(element.type)) label = normalize(element.value || element.type);
      if (element.type === "image") label = normalize(element.alt);
    }
    if (!label && role === "button" && element.localName !== "input") {
      label = normalize(element.innerText);
      if (!label) {
        const image = element.querySelector("img[alt]");
        if (image) label = normalize(image.alt);
      }
    }
    if (!label && element.localName === "fieldset") {
      const legend = element.querySelector("legend");
      if (legend) label = normalize(legend.innerText);
    }
    if (!label) label = normalize(element.getAttribute("placeholder") || element.getAttribute("title"));
    return label || "unlabeled " + role;
  }

  function isPrivate(element) {
    if (element.localName === "input" && element.type === "password") return true;
    const autocomplete = (element.getAttribute("autocomplete") || "").toLowerCase();
    if (/(^|\s)(one-time-code|current-password|new-password|cc-number|cc-csc|cc-exp\S*)(\s|$)/.test(autocomplete)) {
      return true;
    }
    return element.hasAttribute("data-private");
  }

  function remoteTarget(element, allowed) {
    // A link or form that leads to a non-permitted origin is withheld: the driver would refuse to go there.
    let target = null;
    if (element.localName === "a") target = element.href;
    else if (element.form && (element.type === "submit" || element.localName === "button")) target = element.form.action;
    if (!target) return false;
    try {
      const url = new URL(target, location.href);
      if (url.protocol !== "http:" && url.protocol !== "https:") return false;
      return !allowed.includes(url.origin);
    } catch (error) {
      return true;
    }
  }

  function describe(element, role, limits, omitted) {
    const rawLabel = labelOf(element, role);
    const label = clip(rawLabel, 256);
    if (label.clipped) omitted.add("name_limit");
    const entry = { ref: refFor(element, "e"), role, label: label.text };
    const isSelect = element.localName === "select";
    if (role === "checkbox" || role === "radio") {
      entry.checked =
        "checked" in element && element.localName === "input"
          ? element.checked
          : element.getAttribute("aria-checked") === "true";
    } else if (role === "textbox" || role === "slider" || (role === "combobox" && !isSelect)) {
      if (isPrivate(element)) {
        omitted.add("private");
      } else {
        let value = null;
        if ("value" in element && element.localName !== "button") value = element.value;
        else if (element.isContentEditable) value = element.innerText;
        else if (element.hasAttribute("aria-valuenow")) value = element.getAttribute("aria-valuenow");
        if (value != null) {
          value = wellFormed(value);
          if (byteLength(value) > 512) omitted.add("value");
          else entry.value = value;
        }
      }
    }
    if (isSelect) {
      if (isPrivate(element)) {
        omitted.add("private");
      } else {
        const options = [];
        const all = element.options;
        for (let index = 0; index < all.length; index += 1) {
          if (options.length >= limits.max_options) {
            omitted.add("report_limit");
            break;
          }
          const option = all[index];
          const optionLabel = clip(normalize(option.label || option.text) || "(empty)", 256);
          const optionValue = wellFormed(option.value);
          if (optionLabel.clipped) omitted.add("name_limit");
          if (byteLength(optionValue) > 512) {
            omitted.add("value");
            continue;
          }
          const item = { label: optionLabel.text, value: optionValue };
          if (role === "listbox") item.selected = option.selected;
          options.push(item);
        }
        entry.options = options;
        if (role === "combobox" && element.selectedIndex >= 0) {
          const current = wellFormed(element.options[element.selectedIndex].value);
          if (byteLength(current) <= 512) entry.value = current;
        }
      }
    }
    return entry;
  }

  function scopeLabel(element) {
    let label = normalize(element.getAttribute("aria-label"));
    const labelledBy = element.getAttribute("aria-labelledby");
    if (!label && labelledBy) label = normalize(textOfIds(labelledBy));
    if (!label && element.localName === "fieldset") {
      const legend = element.querySelector(":scope > legend");
      if (legend) label = normalize(legend.innerText);
    }
    if (!label) {
      const heading = element.querySelector("h1, h2, h3, h4, h5, h6");
      if (heading) label = normalize(heading.innerText);
    }
    return clip(label || element.localName, 256).text;
  }
  const SCOPE_SELECTOR =
    "main, nav, header, footer, aside, form, section, article, fieldset, dialog[open], [role=region], " +
    "[role=main], [role=navigation], [role=form], [role=search], [role=dialog], [role=group]";

  // One bounded walk of the element tree under `root`. It never enters frames or shadow roots (they are
  // reported as omitted) and stops after `limits.work_nodes` elements.
  function walk(root, options) {
    const limits = options.limits;
    const omitted = new Set();
    const elements = [];
    const scopes = [];
    const stack = [[root, 0, false]];
    const texts = [];
    let visited = 0;
    while (stack.length) {
      const [element, depth, inLabel] = stack.pop();
      if (element.nodeType === Node.TEXT_NODE) {
        // Label text is already the label of its control, so a label-free text avoids saying it twice.
        const piece = inLabel && options.skipLabels ? "" : normalize(element.data);
        if (piece) texts.push(piece);
        continue;
      }
      visited += 1;
      if (visited > limits.work_nodes) {
        omitted.add("work_limit");
        break;
      }
      if (element !== root && !element.checkVisibility()) continue; // display:none hides the whole subtree
      if (element.shadowRoot) omitted.add("unsupported_root");
      const role = roleOf(element);
      if (role === FRAME) {
        if (visible(element)) omitted.add("frame_limit");
        continue;
      }
      if (element !== root && options.scopes && element.matches(SCOPE_SELECTOR) && visible(element)) {
        scopes.push({ ref: refFor(element, "s"), label: scopeLabel(element) });
      }
      if (role && options.elements && visible(element)) {
        if (role === UNSUPPORTED) {
          omitted.add("unsupported_control");
        } else if (remoteTarget(element, options.allowed)) {
          omitted.add("remote_action");
        } else if (elements.length >= limits.max_elements) {
          omitted.add("target_limit");
        } else if (!options.match || options.match(element, role)) {
          elements.push(describe(element, role, limits, omitted));
        }
        // A control's descendants are its label or options, already part of its entry.
        continue;
      }
      if (depth >= options.depth) {
        if (element.firstElementChild) omitted.add("target_limit");
        continue;
      }
      // Text nodes are visited only when the read reports text: walking childNodes costs more than children.
      const children = options.text ? element.childNodes : element.children;
      const labelled = inLabel || element.localName === "label";
      for (let index = children.length - 1; index >= 0; index -= 1) {
        const child = children[index];
        if (child.nodeType === Node.ELEMENT_NODE || child.nodeType === Node.TEXT_NODE) {
          stack.push([child, depth + 1, labelled]);
        }
      }
    }
    return { elements, scopes, omitted, text: texts.join("\n") };
  }

  function readText(root, limits, omitted) {
    const text = clip(normalizeLines(root.innerText), limits.text_bytes);
    if (text.clipped) omitted.add("text_limit");
    return text.text;
  }
  function normalizeLines(text) {
    return wellFormed(text)
      .split("\n")
      .map((line) => line.replace(/\s+/g, " ").trim())
      .filter((line) => line)
      .join("\n");
  }

  function finish(text, result, extra) {
    const report = Object.assign({ version: 1, text, elements: result.elements, omitted: [...result.omitted] }, extra);
    return report;
  }

  function resolve(ref, want) {
    if (typeof ref !== "string") return { error: "unknown" };
    const dot = ref.indexOf(".");
    if (dot < 0 || ref.slice(0, dot) !== token) return { error: "stale" };
    const handle = registry.get(ref);
    const element = handle ? handle.deref() : undefined;
    if (!element) return { error: handle ? "stale" : "unknown" };
    const isScope = ref.charAt(dot + 1) === "S";
    if (want === "element" && isScope) return { error: "scope" };
    if (want === "scope" && !isScope) return { error: "not_scope" };
    if (!visible(element)) return { error: "stale" };
    return { element };
  }

  function inViewport(rect) {
    return rect.bottom > 0 && rect.right > 0 && rect.top < innerHeight && rect.left < innerWidth;
  }
  function hits(element, x, y) {
    const hit = document.elementFromPoint(x, y);
    if (!hit) return false;
    if (hit === element || element.contains(hit)) return true;
    const label = hit.closest("label");
    return Boolean(label && label.control === element);
  }

  const agent = {
    token,
    read(options) {
      const body = document.body || document.documentElement;
      const walkOptions = {
        limits: options.limits,
        allowed: options.allowed,
        elements: true,
        scopes: false,
        depth: Infinity,
        match: null,
      };
      if (options.mode === "text") {
        const omitted = new Set();
        return finish(readText(body, options.limits, omitted), { elements: [], omitted });
      }
      if (options.mode === "find") {
        const query = normalize(options.query).toLowerCase();
        walkOptions.match = (element, role) => labelOf(element, role).toLowerCase().includes(query);
        const result = walk(body, walkOptions);
        const lines = readText(body, options.limits, result.omitted)
          .split("\n")
          .filter((line) => line.toLowerCase().includes(query));
        return finish(lines.join("\n"), result);
      }
      // Whole-page reads leave out the text of labels: it is already each control's label, and saying it twice
      // made the report's text as large as its elements (spec/000 "Return a structured page read": the example
      // report's text does not repeat its button's label).
      if (options.mode === "interactive") return finish("", walk(body, walkOptions));
      walkOptions.text = true;
      walkOptions.skipLabels = true;
      const result = walk(body, walkOptions);
      const text = clip(result.text, options.limits.text_bytes);
      if (text.clipped) result.omitted.add("text_limit");
      return finish(text.text, result);
    },
    readScoped(options) {
      const body = document.body || document.documentElement;
      const walkOptions = {
        limits: options.limits,
        allowed: options.allowed,
        elements: options.root !== null,
        scopes: true,
        depth: options.depth,
        match: null,
      };
      if (options.root === null) {
        walkOptions.depth = Infinity;
        const result = walk(body, walkOptions);
        return finish("", result, { scopes: result.scopes });
      }
      const found = resolve(options.root, "scope");
      if (found.error) return found;
      walkOptions.text = options.filter !== "interactive";
      const result = walk(found.element, walkOptions);
      const text = clip(result.text, options.limits.text_bytes);
      if (text.clipped) result.omitted.add("text_limit");
      return finish(text.text, result, { scopes: result.scopes });
    },
    // Viewport coordinates of the centre of a ref'd control, scrolled into view if needed, after checking
    // that a click there would reach the control and not something covering it.
    point(ref, options) {
      const found = resolve(ref, "element");
      if (found.error) return found;
      const element = found.element;
      if (options.role && roleOf(element) !== options.role) return { error: "role" };
      if (options.enabled && element.disabled) return { error: "disabled" };
      let rect = element.getBoundingClientRect();
      if (!inViewport(rect) || options.center) {
        element.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
        rect = element.getBoundingClientRect();
      }
      const left = Math.max(rect.left, 0);
      const top = Math.max(rect.top, 0);
      const right = Math.min(rect.right, innerWidth);
      const bottom = Math.min(rect.bottom, innerHeight);
      if (right <= left || bottom <= top) return { error: "offscreen" };
      const x = (left + right) / 2;
      const y = (top + bottom) / 2;
      if (options.hit && !hits(element, x, y)) return { error: "obscured" };
      return { x, y, role: roleOf(element) };
    },
    scrollTo(ref) {
      const found = resolve(ref, "element");
      if (found.error) return found;
      found.element.scrollIntoView({ block: "center", inline: "nearest", behavior: "instant" });
      return { ok: true };
    },
    // Select the current contents of a focused text control so typing replaces them. Fails unless the ref'd
    // control really holds focus, which binds typing to the control the caller approved.
    selectContents(ref) {
      const found = resolve(ref, "element");
      if (found.error) return found;
      const element = found.element;
      if (roleOf(element) !== "textbox" && !(roleOf(element) === "combobox" && element.localName === "input")) {
        return { error: "role" };
      }
      if (element.disabled || element.readOnly) return { error: "disabled" };
      if (document.activeElement !== element) element.focus();
      if (document.activeElement !== element) return { error: "focus" };
      if (typeof element.select === "function") element.select();
      else {
        const range = document.createRange();
        range.selectNodeContents(element);
        const selection = getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
      }
      const current = "value" in element ? element.value : element.textContent;
      return { ok: true, empty: !current };
    },
    isFocused(ref) {
      const found = resolve(ref, "element");
      return !found.error && document.activeElement === found.element;
    },
    select(ref, values) {
      const found = resolve(ref, "element");
      if (found.error) return found;
      const element = found.element;
      if (element.localName !== "select") return { error: "role" };
      if (element.disabled) return { error: "disabled" };
      const wanted = new Set();
      for (const value of values) {
        const option = Array.from(element.options).find(
          (candidate) => candidate.value === value || normalize(candidate.label) === normalize(value),
        );
        if (!option || option.disabled) return { error: "no_option" };
        wanted.add(option);
      }
      if (!element.multiple && wanted.size !== 1) return { error: "single" };
      for (const option of element.options) option.selected = wanted.has(option);
      element.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
      element.dispatchEvent(new Event("change", { bubbles: true }));
      return { ok: true };
    },
    checkedState(ref) {
      const found = resolve(ref, "element");
      if (found.error) return found;
      const element = found.element;
      if (roleOf(element) !== "checkbox") return { error: "role" };
      const checked =
        element.localName === "input" ? element.checked : element.getAttribute("aria-checked") === "true";
      return { checked, disabled: Boolean(element.disabled) };
    },
    hasText(text) {
      const body = document.body || document.documentElement;
      return normalize(body.innerText).includes(normalize(text));
    },
    fileInput() {
      const candidates = Array.from(document.querySelectorAll("input[type=file]")).filter(visible);
      const active = document.activeElement;
      if (active && candidates.includes(active)) return active;
      return candidates.length === 1 && !candidates[0].disabled ? candidates[0] : null;
    },
    downloadLink(name) {
      for (const link of document.querySelectorAll("a[href]")) {
        try {
          const url = new URL(link.href, location.href);
          if (decodeURIComponent(url.pathname.split("/").pop()) === name) return url.href;
        } catch (error) {
          continue;
        }
      }
      return null;
    },
    viewport() {
      return { width: innerWidth, height: innerHeight, scrollX, scrollY };
    },
  };
  // The driver's one entry point: the answer crosses to Python as a single JSON string, which Playwright moves
  // far faster than the same value as a structured object (a 2,000-control read: 40 ms instead of 195 ms).
  // A page may also give prototypes a toJSON (old libraries put one on Array.prototype), which JSON.stringify
  // would call: those are set aside for the length of one synchronous call and put back.
  const JSON_PROTOTYPES = [Object.prototype, Array.prototype, String.prototype, Number.prototype, Boolean.prototype];
  function serialise(value) {
    const setAside = [];
    try {
      for (const prototype of JSON_PROTOTYPES) {
        const own = Object.getOwnPropertyDescriptor(prototype, "toJSON");
        if (!own) continue;
        if (!own.configurable) return stringify({ error: "page_tampered" });
        setAside.push([prototype, own]);
        delete prototype.toJSON;
      }
      return stringify(value === undefined ? null : value);
    } finally {
      for (const [prototype, own] of setAside) Object.defineProperty(prototype, "toJSON", own);
    }
  }
  const entry = Object.freeze({
    call(method, args) {
      if (!Object.prototype.hasOwnProperty.call(agent, method)) return serialise({ error: "unknown_method" });
      return serialise(agent[method](...args));
    },
    // An element handle cannot cross as JSON; upload_file needs the file input itself.
    fileInput: agent.fileInput,
  });
  Object.freeze(agent);
  Object.defineProperty(window, NAME, { value: entry, enumerable: false, configurable: false, writable: false });
});
