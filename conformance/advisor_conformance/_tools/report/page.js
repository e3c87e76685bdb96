/* The report page's behaviour: the detail panel of a cell or a run, and the filters.
   Every text from the reports is set with textContent, never parsed as HTML. */
(function () {
  "use strict";
  var SYMBOL = { passed: "\u2713", failed: "\u2717", warning: "!", warned: "!", xfailed: "x", skipped: "\u2013",
                 "no tests": "\u00b7", absent: "\u2205", "not checked": "?", changed: "\u0394",
                 "not recorded": "\u2205" };
  var LABEL = { absent: "not in this run" };
  var data = null;
  var table = document.getElementById("matrix");
  var panel = document.getElementById("detail");
  var title = document.getElementById("detail-title");
  var body = document.getElementById("detail-body");
  var opener = null;

  function report() {
    if (data === null) { data = JSON.parse(document.getElementById("report-data").textContent); }
    return data;
  }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function badge(outcome) {
    var cls = "badge o-" + outcome.replace(" ", "-");
    return el("span", cls, SYMBOL[outcome] + " " + (LABEL[outcome] || outcome));
  }

  function definitions(pairs) {
    var dl = el("dl");
    pairs.forEach(function (pair) {
      if (pair[1] === undefined || pair[1] === null || pair[1] === "") { return; }
      dl.appendChild(el("dt", null, pair[0]));
      var dd = el("dd");
      if (pair[1] instanceof Node) { dd.appendChild(pair[1]); } else { dd.textContent = String(pair[1]); }
      dl.appendChild(dd);
    });
    return dl;
  }

  function runName(index) {
    var run = report().runs[index];
    return "#" + (index + 1) + " " + run.name;
  }

  function countsText(counts) {
    if (!counts || !counts.length) { return ""; }
    var names = ["passed", "failed", "warned", "xfailed", "skipped", "failed on another rule first",
                 "snapshot changed", "snapshot not recorded"];
    var parts = [];
    names.forEach(function (name, i) { if (counts[i + 2]) { parts.push(counts[i + 2] + " " + name); } });
    return counts[1] + " test" + (counts[1] === 1 ? "" : "s") + (parts.length ? ": " + parts.join(", ") : "");
  }

  function show(heading, nodes, from) {
    if (opener && opener.classList) { opener.classList.remove("open"); }
    opener = from;
    if (from && from.parentNode.classList.contains("cell")) { from.classList.add("open"); }
    title.textContent = heading;
    body.replaceChildren.apply(body, nodes);
    panel.hidden = false;
    panel.scrollTop = 0;
    panel.focus();
  }

  function close() {
    if (panel.hidden) { return; }
    panel.hidden = true;
    if (opener) { opener.classList.remove("open"); opener.focus(); }
    opener = null;
  }

  function openCell(button) {
    var d = report();
    var ruleId = button.closest("tr").dataset.rule;
    var index = Number(button.parentNode.dataset.run);
    var rule = d.rules[ruleId] || { known: false };
    var row = d.counts[index][ruleId];
    var outcome = row ? row[0] : "absent";
    var nodes = [];
    var head = el("p");
    head.appendChild(badge(outcome));
    head.appendChild(document.createTextNode(runName(index) + (row ? " \u2014 " + countsText(row) : "")));
    nodes.push(head);
    var run = d.runs[index];
    if (!rule.known) {
      nodes.push(el("p", "note", "This rule is not in the installed catalogue (" + d.catalogue + "): no statement " +
        "to show. The run used catalogue " + ((run.suite && run.suite.catalogue) || "?") + "."));
    }
    var source = null;
    if (rule.source) { source = el("blockquote", null, rule.source); }
    nodes.push(definitions([
      ["Statement", rule.statement], ["Source", source], ["Level", rule.level], ["Tag", rule.tag],
      ["Area", rule.areaTitle ? rule.areaTitle + " (" + rule.area + ")" : rule.area], ["Why should", rule.why]
    ]));
    var others = el("ul", "others");
    d.runs.forEach(function (other, i) {
      if (i === index) { return; }
      var otherRow = d.counts[i][ruleId];
      var item = el("li");
      item.appendChild(badge(otherRow ? otherRow[0] : "absent"));
      item.appendChild(document.createTextNode(runName(i)));
      others.appendChild(item);
    });
    if (others.childNodes.length) { nodes.push(el("h3", null, "In the other runs")); nodes.push(others); }
    var tests = d.cells[index][ruleId] || [];
    nodes.push(el("h3", null, tests.length ? "Tests that did not pass (" + tests.length + ")" : "Tests"));
    if (!tests.length) {
      var text = !row ? "This run has no such rule (its catalogue lacks it)." :
        row[1] ? "Every test of this rule passed in this run." : "No test of this run checks this rule.";
      nodes.push(el("p", null, text));
    }
    tests.forEach(function (test) {
      var box = el("div", "test");
      box.dataset.outcome = test[1];
      box.appendChild(badge(test[1]));
      box.appendChild(el("code", "nodeid", d.nodes[test[0]]));
      if (test[3] >= 0) { box.appendChild(el("p", "diagnosis", d.messages[test[3]])); }
      if (test[2] >= 0) { box.appendChild(el("pre", "message", d.messages[test[2]])); }
      nodes.push(box);
    });
    show(ruleId, nodes, button);
  }

  function openRun(button) {
    var d = report();
    var index = Number(button.dataset.runInfo);
    var run = d.runs[index];
    var impl = run.implementation || {};
    var tests = Object.keys(run.tests || {}).filter(function (k) { return run.tests[k]; })
      .map(function (k) { return run.tests[k] + " " + k; }).join(", ");
    var args = run.arguments && run.arguments.length ? el("code", null, run.arguments.join(" ")) : null;
    var nodes = [definitions([
      ["File", run.path], ["Implementation", impl.name], ["Version", impl.version], ["Language", impl.language],
      ["Protocol", impl.protocol], ["Areas", (impl.areas || []).join(", ")],
      ["Options", impl.options ? JSON.stringify(impl.options) : ""], ["Target", run.target],
      ["Arguments", args], ["Started", run.started],
      ["Duration", typeof run.duration === "number" ? run.duration + " s" : ""],
      ["Strict should", run.strict ? "yes" : "no"], ["Suite", run.suite.name ? run.suite.name + " " + run.suite.version : ""],
      ["Catalogue", run.suite.catalogue], ["Tests", tests]
    ])];
    show(runName(index), nodes, button);
  }

  table.addEventListener("click", function (event) {
    var cell = event.target.closest("td.cell button");
    if (cell) { openCell(cell); return; }
    var run = event.target.closest("button[data-run-info]");
    if (run) { openRun(run); }
  });
  document.getElementById("detail-close").addEventListener("click", close);
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") { close(); }
  });

  var failing = document.getElementById("f-failing");
  var area = document.getElementById("f-area");
  var must = document.getElementById("f-must");
  var shown = document.getElementById("shown");
  var groups = Array.prototype.slice.call(table.tBodies);

  function applyFilters() {
    var total = 0, visible = 0;
    groups.forEach(function (group) {
      var groupVisible = 0;
      var outside = area.value !== "" && group.dataset.area !== area.value;
      Array.prototype.forEach.call(group.rows, function (row) {
        if (!row.dataset.rule) { return; }
        total += 1;
        var hide = outside || (failing.checked && row.dataset.allPassed === "1") ||
          (must.checked && row.dataset.level !== "must");
        row.hidden = hide;
        if (!hide) { groupVisible += 1; }
      });
      group.hidden = groupVisible === 0;
      visible += groupVisible;
    });
    shown.textContent = visible + " of " + total + " rules shown";
  }
  [failing, area, must].forEach(function (control) { control.addEventListener("change", applyFilters); });
  document.getElementById("filters").addEventListener("submit", function (event) { event.preventDefault(); });
  if (failing.checked || area.value || must.checked) { applyFilters(); }  /* a reload keeps the form's state */
  document.documentElement.dataset.ready = "1";
})();
