// errfix demo: a Slack-like channel drawn from the stand-in Slack's store.
//
// Everything the person does goes to /demo/api/* (a message, a slash command, a button, a
// reaction); the demo server turns it into the signed request Slack would send to errfix's
// /slack/events. Nothing here talks to errfix directly. What errfix posts arrives by
// long-polling /demo/api/state and is drawn from its Block Kit.
"use strict";

(() => {
  const EMOJI = {
    "+1": "👍", thumbsup: "👍", "-1": "👎", thumbsdown: "👎", white_check_mark: "✅",
    heavy_check_mark: "✔️", x: "❌", warning: "⚠️", eyes: "👀", tada: "🎉", fire: "🔥",
    bulb: "💡", mag: "🔍", memo: "📝", wrench: "🔧", hammer_and_wrench: "🛠️", bug: "🐛",
    rocket: "🚀", wave: "👋", question: "❓", exclamation: "❗", no_entry: "⛔", robot_face: "🤖",
    information_source: "ℹ️", books: "📚", chart_with_upwards_trend: "📈", zap: "⚡",
    white_circle: "⚪", red_circle: "🔴", large_green_circle: "🟢", pray: "🙏", heart: "❤️",
    slightly_smiling_face: "🙂", sweat_smile: "😅", thinking_face: "🤔", raised_hands: "🙌",
  };
  const QUICK_REACTIONS = ["+1", "-1"];
  const COLLAPSE_LINES = 8;
  const GENERAL = "C_GENERAL";
  const DM = "D_ERRFIX";

  const state = {
    data: null,
    version: -1,
    view: "channel", // "channel" (the one in `channel`), "home" or "messages" (the errfix app's tabs)
    channel: GENERAL, // the channel shown when view is "channel"
    thread: null, // {channel, ts} of the open thread
    awaiting: new Map(), // "channel/ts" of my messages whose thread opens when errfix answers
    expanded: new Set(),
    dismissed: new Set(),
    notices: [], // local "Slackbot" notes: {channel, thread_ts, ts, text}
    stick: { channel: true, thread: true },
  };

  const $ = (id) => document.getElementById(id);

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // ---- talking to the demo server ---------------------------------------------------------

  async function post(path, body) {
    let data;
    try {
      const resp = await fetch(path, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      data = await resp.json().catch(() => ({ ok: false, error: `HTTP ${resp.status}` }));
    } catch (err) {
      data = { ok: false, error: `the demo server did not answer (${err})` };
    }
    if (!data.ok && !data.notice) showBanner(data.error || "something went wrong");
    return data;
  }

  async function poll() {
    let failures = 0;
    for (;;) {
      try {
        const wait = state.data ? 1 : 0;
        const resp = await fetch(`/demo/api/state?since=${state.version}&wait=${wait}`, { cache: "no-store" });
        if (!resp.ok) throw new Error(`HTTP ${resp.status}`);
        const data = await resp.json();
        if (failures) hideBanner();
        failures = 0;
        state.data = data;
        state.version = data.version;
        render();
      } catch (err) {
        failures += 1;
        showBanner("Lost the demo server: is `errfix demo` still running? Retrying…");
        await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 500 * failures)));
      }
    }
  }

  function showBanner(text) {
    const banner = $("banner");
    banner.textContent = text;
    banner.hidden = false;
  }

  function hideBanner() {
    $("banner").hidden = true;
  }

  // ---- Slack's mrkdwn ---------------------------------------------------------------------

  const INLINE = new RegExp(
    [
      "(`[^`\\n]+`)", // 1 code
      "(<[^<>\\n]+>)", // 2 link, mention
      "(?<![\\w*])\\*(?=\\S)([^*\\n]+?)(?<=\\S)\\*(?![\\w*])", // 3 bold
      "(?<![\\w_])_(?=\\S)([^_\\n]+?)(?<=\\S)_(?![\\w_])", // 4 italic
      "(?<![\\w~])~(?=\\S)([^~\\n]+?)(?<=\\S)~(?![\\w~])", // 5 strike
      ":([a-z0-9_+'-]+):", // 6 emoji
    ].join("|"),
    "gi",
  );

  function unescapeSlack(text) {
    return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  }

  function emoji(name) {
    return EMOJI[name] || `:${name}:`;
  }

  function withEmoji(text) {
    return text.replace(/:([a-z0-9_+'-]+):/gi, (all, name) => EMOJI[name] || all);
  }

  function userName(id) {
    const user = state.data && state.data.users[id];
    return user ? user.name : id;
  }

  function special(inner) {
    const [target, label] = inner.split("|", 2);
    if (target.startsWith("@")) return el("span", "mention", `@${label || userName(target.slice(1))}`);
    if (target.startsWith("#")) return el("span", "mention", `#${label || target.slice(1)}`);
    if (target.startsWith("!")) return el("span", "mention", `@${label || target.slice(1).split("^")[0]}`);
    if (/^(https?:|mailto:)/i.test(target)) {
      const a = el("a", "link", unescapeSlack(label || target));
      a.href = unescapeSlack(target);
      a.target = "_blank";
      a.rel = "noopener noreferrer";
      return a;
    }
    return document.createTextNode(unescapeSlack(label || target));
  }

  function inline(text) {
    const frag = document.createDocumentFragment();
    let last = 0;
    for (const m of text.matchAll(INLINE)) {
      if (m.index > last) frag.append(unescapeSlack(text.slice(last, m.index)));
      if (m[1]) frag.append(el("code", "inline-code", unescapeSlack(m[1].slice(1, -1))));
      else if (m[2]) frag.append(special(m[2].slice(1, -1)));
      else if (m[3] !== undefined) frag.append(wrap("b", inline(m[3])));
      else if (m[4] !== undefined) frag.append(wrap("i", inline(m[4])));
      else if (m[5] !== undefined) frag.append(wrap("s", inline(m[5])));
      else frag.append(EMOJI[m[6]] ? el("span", "emoji", EMOJI[m[6]]) : m[0]);
      last = m.index + m[0].length;
    }
    if (last < text.length) frag.append(unescapeSlack(text.slice(last)));
    return frag;
  }

  function wrap(tag, content) {
    const node = el(tag);
    node.append(content);
    return node;
  }

  function paragraphs(chunk) {
    const frag = document.createDocumentFragment();
    let quote = null;
    let para = null;
    for (const row of chunk.split("\n")) {
      const quoted = row.match(/^(?:&gt;|>) ?(.*)$/);
      const target = quoted ? "quote" : "para";
      if (target === "quote") {
        para = null;
        if (!quote) frag.append((quote = el("blockquote", "quote")));
        else quote.append("\n");
        quote.append(inline(quoted[1]));
      } else {
        quote = null;
        if (!para) frag.append((para = el("div", "para")));
        else para.append("\n");
        para.append(inline(row));
      }
    }
    return frag;
  }

  function mrkdwn(text) {
    const out = el("div", "mrkdwn");
    const parts = String(text || "").split("```");
    parts.forEach((part, i) => {
      const code = i % 2 === 1 && i < parts.length - 1;
      let chunk = part;
      if (i > 0) chunk = chunk.replace(/^\n/, "");
      if (i < parts.length - 1) chunk = chunk.replace(/\n$/, "");
      if (code) out.append(el("pre", "code-block", unescapeSlack(chunk)));
      else if (chunk) out.append(paragraphs(i % 2 === 1 ? "```" + chunk : chunk));
    });
    return out;
  }

  function textObject(obj) {
    if (!obj) return document.createTextNode("");
    if (obj.type === "mrkdwn") return mrkdwn(obj.text);
    return el("span", "plain", obj.emoji === false ? obj.text : withEmoji(obj.text || ""));
  }

  // ---- Block Kit ----------------------------------------------------------------------------

  function element(item, blockId, ctx) {
    if (item.type === "button") {
      const style = item.style ? ` ${item.style}` : "";
      const button = el("button", `bk-button${style}`, withEmoji((item.text && item.text.text) || ""));
      button.type = "button";
      if (item.url) {
        button.addEventListener("click", () => window.open(item.url, "_blank", "noopener"));
        return button;
      }
      button.addEventListener("click", () =>
        press(ctx, { action_id: item.action_id, block_id: blockId || "", value: item.value || "" }, button),
      );
      return button;
    }
    if (item.type === "image") return el("span", "bk-image", item.alt_text || "image");
    if (item.type === "mrkdwn" || item.type === "plain_text") return textObject(item);
    return null;
  }

  function richText(node) {
    if (!node || typeof node !== "object") return "";
    if (Array.isArray(node)) return node.map(richText).join("");
    if (node.type === "text") return node.text || "";
    return richText(node.elements);
  }

  function blocks(list, ctx) {
    const out = el("div", "blocks");
    for (const block of list) {
      switch (block.type) {
        case "header":
          out.append(el("div", "bk-header", withEmoji((block.text && block.text.text) || "")));
          break;
        case "section": {
          const section = el("div", "bk-section");
          const main = el("div", "bk-section-main");
          if (block.text) main.append(textObject(block.text));
          if (block.fields) {
            const fields = el("div", "bk-fields");
            for (const field of block.fields) fields.append(wrap("div", textObject(field)));
            main.append(fields);
          }
          section.append(main);
          const accessory = block.accessory && element(block.accessory, block.block_id, ctx);
          if (accessory) section.append(wrap("div", accessory));
          out.append(section);
          break;
        }
        case "context": {
          const context = el("div", "bk-context");
          for (const item of block.elements || []) {
            const node = element(item, block.block_id, ctx);
            if (node) context.append(node);
          }
          out.append(context);
          break;
        }
        case "divider":
          out.append(el("hr", "bk-divider"));
          break;
        case "actions": {
          const actions = el("div", "bk-actions");
          for (const item of block.elements || []) {
            const node = element(item, block.block_id, ctx);
            if (node) actions.append(node);
          }
          out.append(actions);
          break;
        }
        case "image":
          out.append(el("div", "bk-image", block.alt_text || "image"));
          break;
        case "rich_text":
          out.append(mrkdwn(richText(block.elements)));
          break;
        default:
          break;
      }
    }
    return out;
  }

  async function press(ctx, action, button) {
    button.disabled = true;
    button.classList.add("busy");
    try {
      await post("/demo/api/action", { ...ctx, ...action });
    } finally {
      button.disabled = false;
      button.classList.remove("busy");
    }
  }

  // ---- messages -----------------------------------------------------------------------------

  function formatTime(ts) {
    return new Date(parseFloat(ts) * 1000).toLocaleTimeString([], { hour: "numeric", minute: "2-digit" });
  }

  function avatar(kind, name) {
    const node = el("div", `avatar ${kind}`, kind === "bot" ? "ef" : kind === "slackbot" ? "✱" : name[0].toUpperCase());
    node.setAttribute("aria-hidden", "true");
    return node;
  }

  function react(channel, ts, name) {
    return post("/demo/api/reaction", { channel, ts, name });
  }

  function openThread(channel, ts) {
    state.thread = { channel, ts };
    state.stick.thread = true;
    render();
    $("thread-input").focus({ preventScroll: true });
  }

  function messageNode(item) {
    const m = item.message;
    const me = state.data.me;
    const bot = Boolean(m.bot_id) || item.kind === "ephemeral"; // only apps post ephemeral messages
    const kind = item.kind === "notice" ? "slackbot" : bot ? "bot" : "person";
    const name = kind === "slackbot" ? "Slackbot" : bot ? "errfix" : userName(m.user);
    const node = el("div", `msg ${kind}${item.kind !== "message" ? " ephemeral" : ""}`);
    node.dataset.ts = m.ts;

    if (item.kind !== "message") {
      const note = el("div", "only-you");
      note.append(el("span", "eye", "👁"), " Only visible to you");
      node.append(note);
    }
    const row = el("div", "msg-row");
    const body = el("div", "msg-body");
    row.append(avatar(kind, name), body);
    const head = el("div", "msg-head");
    head.append(el("span", "msg-author", name));
    if (kind !== "person") head.append(el("span", "badge", "APP"));
    head.append(el("time", "msg-time", formatTime(m.ts)));
    if (m.edited) head.append(el("span", "edited", "(edited)"));
    body.append(head);

    const ctx = {
      channel: m.channel,
      message_ts: m.ts,
      ephemeral: item.kind === "ephemeral",
      thread_ts: m.thread_ts || (item.inThread ? state.thread.ts : null),
    };
    let content;
    if (Array.isArray(m.blocks) && m.blocks.length) content = blocks(m.blocks, ctx);
    else content = mrkdwn(m.text || "");
    const key = `${m.channel}/${m.ts}`;
    const long = kind === "person" && (m.text || "").split("\n").length > COLLAPSE_LINES;
    if (long && !state.expanded.has(key)) content.classList.add("collapsed");
    body.append(content);
    if (long) {
      const more = el("button", "link-button", state.expanded.has(key) ? "Show less" : "Show more");
      more.type = "button";
      more.addEventListener("click", () => {
        if (state.expanded.has(key)) state.expanded.delete(key);
        else state.expanded.add(key);
        render();
      });
      body.append(more);
    }

    if (item.kind === "message" && (m.reactions || []).length) {
      const reactions = el("div", "reactions");
      for (const r of m.reactions) {
        const pill = el("button", `reaction${r.users.includes(me) ? " mine" : ""}`);
        pill.type = "button";
        pill.title = `${r.users.map(userName).join(", ")} reacted with :${r.name}:`;
        pill.setAttribute("aria-label", `${emoji(r.name)} ${r.count}, react with :${r.name}:`);
        pill.append(el("span", "emoji", emoji(r.name)), el("span", "count", String(r.count)));
        pill.addEventListener("click", () => react(m.channel, m.ts, r.name));
        reactions.append(pill);
      }
      body.append(reactions);
    }

    if (!item.inThread && item.replies && item.replies.length) {
      const summary = el("button", "thread-summary");
      summary.type = "button";
      const n = item.replies.length;
      const last = item.replies[item.replies.length - 1];
      summary.append(
        el("span", "reply-count", `${n} ${n === 1 ? "reply" : "replies"}`),
        el("span", "reply-last", `Last reply ${formatTime(last.ts)}`),
      );
      summary.addEventListener("click", () => openThread(m.channel, m.ts));
      body.append(summary);
    }

    if (item.kind === "message") {
      const tools = el("div", "msg-tools");
      for (const name of QUICK_REACTIONS) {
        const b = el("button", "tool", emoji(name));
        b.type = "button";
        b.title = `React with :${name}:`;
        b.setAttribute("aria-label", `React with ${emoji(name)}`);
        b.addEventListener("click", () => react(m.channel, m.ts, name));
        tools.append(b);
      }
      tools.append(messageMenu(m));
      if (!item.inThread) {
        const reply = el("button", "tool", "💬");
        reply.type = "button";
        reply.title = "Reply in thread";
        reply.setAttribute("aria-label", "Reply in thread");
        reply.addEventListener("click", () => openThread(m.channel, m.ts));
        tools.append(reply);
      }
      row.append(tools);
    } else {
      const dismiss = el("button", "link-button dismiss", "Dismiss");
      dismiss.type = "button";
      dismiss.addEventListener("click", () => {
        state.dismissed.add(key);
        render();
      });
      body.append(dismiss);
    }
    node.append(row);
    return node;
  }

  // ---- the message menu and errfix's modal (#17: Save as errfix record) ------------------------

  function messageMenu(m) {
    const wrapper = el("span", "menu-wrap");
    const more = el("button", "tool", "⋯");
    more.type = "button";
    more.title = "More actions";
    more.setAttribute("aria-label", "More actions");
    more.setAttribute("aria-haspopup", "menu");
    const menu = el("div", "msg-menu");
    menu.setAttribute("role", "menu");
    menu.hidden = true;
    const save = el("button", "menu-item", "Save as errfix record");
    save.type = "button";
    save.setAttribute("role", "menuitem");
    save.addEventListener("click", () => {
      menu.hidden = true;
      post("/demo/api/shortcut", { channel: m.channel, ts: m.ts });
    });
    menu.append(save);
    more.addEventListener("click", () => {
      menu.hidden = !menu.hidden;
    });
    wrapper.append(more, menu);
    return wrapper;
  }

  // The modal is drawn once per view (and again when its errors change), so what I type survives
  // the page's redraws.
  function renderModal(modal) {
    const root = $("modal-root");
    if (!modal) {
      root.hidden = true;
      root.replaceChildren();
      root.dataset.key = "";
      return;
    }
    const key = `${modal.id}/${JSON.stringify(modal.errors || {})}`;
    if (root.dataset.key === key) return;
    const typed = {};
    for (const box of root.querySelectorAll("textarea[data-block]")) typed[box.dataset.block] = box.value;
    root.dataset.key = key;
    root.hidden = false;
    const dialog = el("form", "modal");
    dialog.setAttribute("role", "dialog");
    dialog.setAttribute("aria-label", modal.title.text);
    dialog.append(el("h2", "modal-title", modal.title.text));
    const body = el("div", "modal-body");
    for (const block of modal.blocks) {
      if (block.type !== "input") {
        body.append(blocks([block], { channel: "", ts: "", ephemeral: true }));
        continue;
      }
      const field = el("label", "modal-field");
      field.append(el("span", "modal-label", block.label.text + (block.optional ? " (optional)" : "")));
      const box = el("textarea", "modal-input");
      box.dataset.block = block.block_id;
      box.rows = block.block_id === "error_line" || block.block_id === "regex" ? 2 : 3;
      box.value = block.block_id in typed ? typed[block.block_id] : block.element.initial_value || "";
      field.append(box);
      const error = (modal.errors || {})[block.block_id];
      if (error) field.append(el("span", "modal-error", error));
      else if (block.hint) field.append(el("span", "modal-hint", block.hint.text));
      body.append(field);
    }
    dialog.append(body);
    const buttons = el("div", "modal-buttons");
    const cancel = el("button", "bk-button", (modal.close || { text: "Cancel" }).text);
    cancel.type = "button";
    cancel.addEventListener("click", () => post("/demo/api/close", { view_id: modal.id }));
    const submit = el("button", "bk-button primary", modal.submit.text);
    submit.type = "submit";
    buttons.append(cancel, submit);
    dialog.append(buttons);
    dialog.addEventListener("submit", (e) => {
      e.preventDefault();
      const values = {};
      for (const box of dialog.querySelectorAll("textarea[data-block]")) values[box.dataset.block] = box.value;
      post("/demo/api/submit", { view_id: modal.id, values });
    });
    root.replaceChildren(dialog);
  }

  // ---- the workspace -------------------------------------------------------------------------

  function organise(data) {
    const channels = new Map();
    const of = (id) => {
      if (!channels.has(id)) channels.set(id, { top: [], threads: new Map(), threadEphemerals: new Map() });
      return channels.get(id);
    };
    const push = (map, key, value) => {
      if (!map.has(key)) map.set(key, []);
      map.get(key).push(value);
    };
    for (const m of data.messages) {
      const c = of(m.channel);
      const reply = m.thread_ts && m.thread_ts !== m.ts;
      if (reply) push(c.threads, m.thread_ts, m);
      if (!reply || m.subtype === "thread_broadcast") c.top.push({ kind: "message", message: m });
    }
    const extras = [
      ...data.ephemerals.map((e) => ({ kind: "ephemeral", message: e })),
      ...state.notices.map((n) => ({ kind: "notice", message: n })),
    ];
    for (const item of extras) {
      const m = item.message;
      if (state.dismissed.has(`${m.channel}/${m.ts}`)) continue;
      const c = of(m.channel);
      if (m.thread_ts) push(c.threadEphemerals, m.thread_ts, item);
      else c.top.push(item);
    }
    for (const c of channels.values()) c.top.sort((a, b) => parseFloat(a.message.ts) - parseFloat(b.message.ts));
    return { of };
  }

  function signature(item) {
    const key = `${item.message.channel}/${item.message.ts}`;
    return JSON.stringify([item.kind, item.message, item.replies && item.replies.map((r) => r.ts),
      state.expanded.has(key), item.inThread]);
  }

  function renderList(container, items) {
    const old = new Map();
    for (const child of container.children) old.set(child.dataset.key, child);
    let previous = null;
    for (const item of items) {
      const key = `${item.kind}/${item.message.channel}/${item.message.ts}`;
      const sig = signature(item);
      let node = old.get(key);
      if (!node || node.dataset.sig !== sig) {
        const fresh = messageNode(item);
        fresh.dataset.key = key;
        fresh.dataset.sig = sig;
        if (node) node.replaceWith(fresh);
        node = fresh;
      }
      old.delete(key);
      const wanted = previous ? previous.nextSibling : container.firstChild;
      if (wanted !== node) container.insertBefore(node, wanted);
      previous = node;
    }
    for (const node of old.values()) node.remove();
  }

  function nearBottom(scroller) {
    return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 60;
  }

  // Follow the conversation: show the newest message, from its top when it is taller than the pane.
  function followNewest(scroller, list) {
    const newest = list.lastElementChild;
    if (newest && newest.offsetHeight > scroller.clientHeight - 40) scroller.scrollTop = newest.offsetTop - 8;
    else scroller.scrollTop = scroller.scrollHeight;
  }

  function currentChannel() {
    return state.view === "channel" ? state.channel : DM;
  }

  function renderSidebar() {
    const channels = $("channel-list");
    const apps = $("app-list");
    channels.replaceChildren();
    apps.replaceChildren();
    const item = (label, active, onClick, extraClass) => {
      const li = el("li");
      const b = el("button", `side-item${active ? " active" : ""}${extraClass ? ` ${extraClass}` : ""}`, label);
      b.type = "button";
      b.addEventListener("click", () => {
        onClick();
        closeSidebar();
      });
      li.append(b);
      return li;
    };
    for (const c of state.data.channels.filter((x) => x.kind !== "im")) {
      channels.append(item(`# ${c.name}`, state.view === "channel" && state.channel === c.id, () => show("channel", c.id)));
    }
    apps.append(item("errfix", state.view !== "channel", () => show("home"), "app-item"));
  }

  function channelName(id) {
    const found = state.data && state.data.channels.find((c) => c.id === id);
    return found ? found.name : "general";
  }

  function show(view, channel) {
    if (view === state.view && (!channel || channel === state.channel)) return;
    state.view = view;
    if (channel) state.channel = channel;
    state.thread = null;
    state.stick.channel = true;
    if (view === "home") post("/demo/api/home", {});
    render();
  }

  function renderHeader() {
    const general = state.view === "channel";
    const name = channelName(state.channel);
    const quiet = state.channel !== GENERAL;
    $("channel-title").textContent = general ? `# ${name}` : "errfix";
    $("channel-topic").textContent = general
      ? quiet
        ? "errfix here: mention (it answers @errfix and /errfix only) · try /errfix digest now"
        : "Paste an error: errfix answers in its thread"
      : "The errfix app: its Home tab, and your direct messages with it";
    $("home-tabs").hidden = general;
    $("tab-home").classList.toggle("active", state.view === "home");
    $("tab-messages").classList.toggle("active", state.view === "messages");
    document.title = general ? `#${name} · errfix demo` : "errfix · errfix demo";
    $("channel-input").placeholder = general ? `Message #${name}` : "Message errfix";
    const home = state.view === "home";
    $("home").hidden = !home;
    $("channel-scroller").hidden = home;
    $("channel-composer-area").hidden = home;
  }

  function renderIntro() {
    const intro = $("channel-intro");
    intro.replaceChildren();
    if (state.view === "channel" && state.channel !== GENERAL) {
      intro.append(el("h2", "", `This is the very beginning of #${channelName(state.channel)}`));
      intro.append(mrkdwn(
        "This channel said `/errfix here mention`: errfix counts the errors pasted here but answers only " +
        "`@errfix`, DMs and `/errfix`. `/errfix here` shows the setting, `/errfix here auto` turns answers on, " +
        "and `/errfix digest now` posts the week's digest of errors.",
      ));
    } else if (state.view === "channel") {
      intro.append(el("h2", "", "This is the very beginning of #general"));
      intro.append(mrkdwn(
        "Paste a traceback or a failing log line, or pick an example below. errfix is in this channel: " +
        "when it is sure, it answers *in the thread* with the fixes that worked, best first. " +
        "Vote with *Worked* / *Didn't work* or react :+1: / :-1: on its answer; " +
        "`/errfix loss nan` searches, `@errfix` gets its best guess even when unsure.",
      ));
    } else {
      intro.append(el("h2", "", "Your direct messages with errfix"));
      intro.append(mrkdwn("errfix answers every paste here, sure or not."));
    }
  }

  function render() {
    if (!state.data) return;
    const data = state.data;
    const workspace = organise(data);
    const channel = currentChannel();
    const c = workspace.of(channel);

    // open the thread of my message once errfix has answered in it
    for (const [key, info] of state.awaiting) {
      const replies = workspace.of(info.channel).threads.get(info.ts) || [];
      if (replies.some((r) => r.bot_id)) {
        state.awaiting.delete(key);
        if (info.channel === channel) {
          state.thread = { channel: info.channel, ts: info.ts };
          state.stick.thread = true;
        }
      }
    }

    renderSidebar();
    renderHeader();
    if (state.view === "home") renderHome(data);
    renderIntro();

    const scroller = $("channel-scroller");
    const list = $("channel-messages");
    const before = list.lastElementChild && list.lastElementChild.dataset.key;
    const wasNearBottom = nearBottom(scroller);
    const items = c.top.map((item) => ({ ...item, replies: c.threads.get(item.message.ts) || [] }));
    renderList(list, items);
    const arrived = list.lastElementChild && list.lastElementChild.dataset.key !== before;
    if (state.stick.channel || (arrived && wasNearBottom)) followNewest(scroller, list);
    state.stick.channel = false;

    renderThread(workspace);
    renderModal(data.modal);
  }

  function renderHome(data) {
    const home = $("home");
    home.replaceChildren();
    if (!data.home) {
      home.append(el("p", "muted", "Opening errfix's Home tab…"));
      return;
    }
    home.append(blocks(data.home.blocks || [], { channel: DM, message_ts: "", ephemeral: false, thread_ts: null }));
  }

  function renderThread(workspace) {
    const pane = $("thread-pane");
    const open = state.thread && state.thread.channel === currentChannel() && state.view !== "home";
    pane.hidden = !open;
    $("app").classList.toggle("thread-open", Boolean(open));
    if (!open) return;
    const { channel, ts } = state.thread;
    const c = workspace.of(channel);
    const root = c.top.find((item) => item.message.ts === ts);
    if (!root) {
      state.thread = null;
      pane.hidden = true;
      $("app").classList.remove("thread-open");
      return;
    }
    $("thread-channel").textContent = channel === DM ? "errfix" : `# ${channelName(channel)}`;
    const replies = (c.threads.get(ts) || []).map((m) => ({ kind: "message", message: m }));
    const extras = c.threadEphemerals.get(ts) || [];
    const items = [{ ...root, inThread: true }, ...[...replies, ...extras]
      .sort((a, b) => parseFloat(a.message.ts) - parseFloat(b.message.ts))
      .map((item) => ({ ...item, inThread: true }))];
    const scroller = $("thread-scroller");
    const list = $("thread-messages");
    const before = list.lastElementChild && list.lastElementChild.dataset.key;
    const wasNearBottom = nearBottom(scroller);
    renderList(list, items);
    const arrived = list.lastElementChild && list.lastElementChild.dataset.key !== before;
    if (state.stick.thread || (arrived && wasNearBottom)) followNewest(scroller, list);
    state.stick.thread = false;
  }

  // ---- composing ----------------------------------------------------------------------------

  async function send(text, channel, threadTs) {
    const data = await post("/demo/api/message", { channel, text, thread_ts: threadTs || null });
    if (data.notice) {
      state.notices.push({ channel, thread_ts: threadTs || null, ts: String(Date.now() / 1000), text: data.notice });
      render();
    } else if (data.ok && data.ts && !threadTs) {
      state.awaiting.set(`${channel}/${data.ts}`, { channel, ts: data.ts });
    }
    return data;
  }

  function autosize(input) {
    input.style.height = "auto";
    input.style.height = `${Math.min(input.scrollHeight, 220)}px`;
  }

  function setupComposer(form, input, where) {
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        form.requestSubmit();
      }
    });
    input.addEventListener("input", () => autosize(input));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const text = input.value;
      if (!text.trim()) return;
      input.value = "";
      autosize(input);
      const target = where();
      if (target.thread) state.stick.thread = true;
      else state.stick.channel = true;
      const data = await send(text, target.channel, target.thread);
      if (!data.ok && !data.notice && !input.value) input.value = text; // not sent: keep what was typed
    });
  }

  async function loadExamples() {
    const box = $("examples");
    try {
      const resp = await fetch("/demo/api/examples");
      const { examples } = await resp.json();
      box.replaceChildren(el("span", "examples-label", "Try a paste:"));
      for (const example of examples) {
        const b = el("button", "example", example.title);
        b.type = "button";
        b.title = `Post an example paste of ${example.id} as you`;
        b.addEventListener("click", () => {
          state.stick.channel = true;
          send(example.text, currentChannel(), null);
        });
        box.append(b);
      }
    } catch (err) {
      box.hidden = true;
    }
  }

  function closeSidebar() {
    $("app").classList.remove("sidebar-open");
    $("scrim").hidden = true;
  }

  function start() {
    setupComposer($("channel-composer"), $("channel-input"), () => ({ channel: currentChannel(), thread: null }));
    setupComposer($("thread-composer"), $("thread-input"), () => ({
      channel: state.thread ? state.thread.channel : currentChannel(),
      thread: state.thread ? state.thread.ts : null,
    }));
    $("thread-close").addEventListener("click", () => {
      state.thread = null;
      render();
    });
    $("menu-button").addEventListener("click", () => {
      $("app").classList.add("sidebar-open");
      $("scrim").hidden = false;
    });
    $("scrim").addEventListener("click", closeSidebar);
    $("banner").addEventListener("click", hideBanner);
    $("tab-home").addEventListener("click", () => show("home"));
    $("tab-messages").addEventListener("click", () => show("messages"));
    loadExamples();
    poll();
  }

  document.addEventListener("DOMContentLoaded", start);
})();
