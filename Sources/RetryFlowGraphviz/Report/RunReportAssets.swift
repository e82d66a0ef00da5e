/// The run report's style sheet and script: static text, inlined into every page.
enum RunReportAssets {
    /// Light and dark schemes; the current step is blue and thick, the path so far orange and
    /// dashed, so the two differ by shape as well as colour (no red/green pair). Narrow screens
    /// stack the chart above the table; a wide chart (the state diagram) takes the whole width, or
    /// its labels shrink below legible. On a phone the chart is drawn at Graphviz's own size (text
    /// at its point size) and scrolls sideways inside its frame (the page itself does not), and so
    /// does the timeline.
    static let css = """
        :root { --bg: #ffffff; --fg: #1b1f24; --muted: #6a737d; --line: #d0d7de; --panel: #f6f8fa;
          --now: #0550ae; --path: #bc4c00; --nowbg: #ddf4ff; --pathbg: #fff1e5; }
        @media (prefers-color-scheme: dark) {
          :root { --bg: #0d1117; --fg: #e6edf3; --muted: #8b949e; --line: #30363d; --panel: #161b22;
            --now: #79c0ff; --path: #ffa657; --nowbg: #0c2d6b; --pathbg: #3d2200; } }
        * { box-sizing: border-box; }
        body { margin: 0 auto; max-width: 1400px; padding: 12px; background: var(--bg); color: var(--fg);
          font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; }
        h1 { font-size: 1.35rem; margin: 0; overflow-wrap: anywhere; } h2 { font-size: 1.05rem; margin: 0.4rem 0; }
        .sub, figcaption, .legend { color: var(--muted); font-size: 0.85rem; margin: 0.2rem 0; }
        #summary dl { display: flex; flex-wrap: wrap; gap: 6px 18px; margin: 8px 0; }
        #summary dl div { display: flex; gap: 6px; } dt { color: var(--muted); } dd { margin: 0; font-weight: 600; }
        pre { background: var(--panel); padding: 8px; overflow-x: auto; }
        nav#controls { position: sticky; top: 0; z-index: 2; background: var(--bg); padding: 6px 0;
          border-bottom: 1px solid var(--line); }
        .buttons { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
        button, select { font: inherit; color: var(--fg); background: var(--panel); border: 1px solid var(--line);
          border-radius: 6px; padding: 4px 10px; min-height: 36px; }
        button[aria-pressed="true"] { outline: 2px solid var(--now); }
        #slider { width: 100%; margin: 6px 0 0; }
        #status { margin: 4px 0 0; font-weight: 600; min-height: 1.4em; }
        main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 16px; align-items: start; }
        @media (max-width: 1300px) { main { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); } }
        @media (max-width: 900px) { main { grid-template-columns: minmax(0, 1fr); } }
        main.wide { grid-template-columns: minmax(0, 1fr); }
        @media (max-width: 640px) { figure.chart { overflow-x: auto; }
          figure.chart svg { width: auto; max-width: none; height: auto; max-height: none; }
          svg.timeline { min-width: 700px; } }
        figure { margin: 8px 0; } figure svg { display: block; width: 100%; height: auto; max-height: 80vh; }
        .js figure.chart[hidden] { display: none; }
        .scroll { overflow-x: auto; }
        table { border-collapse: collapse; width: 100%; font-size: 0.88rem; }
        th, td { text-align: left; padding: 3px 6px; border-bottom: 1px solid var(--line); vertical-align: top; }
        tr.fired, tr.current { background: var(--nowbg); box-shadow: inset 4px 0 0 var(--now); font-weight: 600; }
        tr.done td { color: var(--muted); }
        svg .graph > polygon { fill: transparent; stroke: none; }
        svg text { fill: var(--fg); }
        .js svg .node polygon, .js svg .node ellipse, .js svg .node path { stroke: var(--fg); fill: transparent; }
        .js svg .edge path { stroke: var(--muted); stroke-width: 1; }
        .js svg .edge polygon { stroke: var(--muted); fill: var(--muted); }
        .js svg .edge text { fill: var(--muted); }
        .js svg .edge.path path { stroke: var(--path); stroke-width: 2.5; stroke-dasharray: 6 3; }
        .js svg .edge.path polygon { stroke: var(--path); fill: var(--path); }
        .js svg .edge.path text { fill: var(--fg); }
        .js svg .edge.now path { stroke: var(--now); stroke-width: 4; stroke-dasharray: none; }
        .js svg .edge.now polygon { stroke: var(--now); fill: var(--now); }
        .js svg .edge.now text { fill: var(--now); font-weight: 700; }
        .js svg .node.here polygon, .js svg .node.here ellipse, .js svg .node.here path {
          stroke: var(--now); stroke-width: 4; fill: var(--nowbg); }
        svg.timeline { width: 100%; max-width: 1000px; height: auto; display: block; }
        svg.timeline .axis, svg.timeline line.tick { stroke: var(--muted); }
        svg.timeline text { fill: var(--fg); font-size: 11px; }
        svg.timeline .wait line { stroke: var(--muted); stroke-width: 2; stroke-dasharray: 2 3; }
        svg.timeline .attempt rect { stroke: var(--fg); stroke-width: 1; }
        svg.timeline .attempt.retried rect { fill: var(--path); }
        svg.timeline .attempt.last rect { fill: var(--now); }
        svg.timeline .copy rect { stroke: var(--fg); stroke-width: 0.5; fill: var(--path); }
        svg.timeline .copy.won rect, svg.timeline .copy.final rect { fill: var(--now); }
        svg.timeline .copy.cancelled rect { fill: none; stroke-dasharray: 3 2; }
        .js svg.timeline .attempt.future { opacity: 0.3; }
        svg.timeline .marker { display: none; stroke: var(--now); stroke-width: 3; }
        .js svg.timeline .marker { display: inline; }
        .key { display: inline-block; width: 12px; height: 12px; border: 1px solid var(--fg); vertical-align: middle; }
        .key.retried { background: var(--path); } .key.last { background: var(--now); }
        """

    /// The step-through: position `i` means "i steps taken" (0: at the start, N: the end).
    static let script = """
        (function () {
          "use strict";
          var steps = RUN.steps, n = steps.length, i = 0, style = "flowchart", timer = null, scope = RUN.scopes[0];
          var keys = Object.keys(RUN.rowEdges);
          function key() { return (scope === "policy" ? "policy_" : "") + style; }
          var $ = function (id) { return document.getElementById(id); };
          document.documentElement.classList.add("js");
          $("controls").hidden = false;
          function figures() { return document.querySelectorAll("figure.chart"); }
          function setStyle(name) {
            style = name;
            figures().forEach(function (f) {
              f.hidden = f.getAttribute("data-chart") !== key();
              // A chart much wider than tall gets the whole row (its text would be tiny beside the table).
              var box = f.hidden ? null : f.querySelector("svg").viewBox.baseVal;
              if (box) { document.querySelector("main").classList.toggle("wide", box.width > 2 * box.height); }
            });
            ["flowchart", "state"].forEach(function (s) {
              $("style-" + s).setAttribute("aria-pressed", String(s === name));
            });
            RUN.scopes.forEach(function (s) {
              if ($("scope-" + s)) { $("scope-" + s).setAttribute("aria-pressed", String(s === scope)); }
            });
            show(i);
          }
          function setScope(name) { scope = name; setStyle(style); }
          function clear(cls) {
            document.querySelectorAll("." + cls).forEach(function (e) { e.classList.remove(cls); });
          }
          function mark(id, cls) { var e = $(id); if (e) { e.classList.add(cls); } }
          function edgesOf(step, s) { return step.row === null ? [] : RUN.rowEdges[s][step.row]; }
          function show(k) {
            i = Math.max(0, Math.min(n, k));
            ["now", "path", "here", "fired", "current", "done", "future"].forEach(clear);
            keys.forEach(function (s) {
              for (var j = 0; j < i; j++) {
                edgesOf(steps[j], s).forEach(function (id) { mark(id, j === i - 1 ? "now" : "path"); });
              }
              var state = i === 0 ? RUN.initial : steps[i - 1].to;
              if (state !== null && RUN.stateNodes[s][state]) { mark(RUN.stateNodes[s][state], "here"); }
            });
            for (var j = 1; j < i; j++) { mark("step_" + j, "done"); }
            if (i > 0) {
              mark("step_" + i, "current");
              if (steps[i - 1].row !== null) { mark("tablerow_" + steps[i - 1].row, "fired"); }
            }
            var now = i === 0 ? 0 : steps[i - 1].at;
            document.querySelectorAll("svg.timeline .attempt").forEach(function (bar) {
              if (i === 0 || parseFloat(bar.getAttribute("data-start")) > now) { bar.classList.add("future"); }
            });
            var line = $("timeline-now"), axis = line && line.ownerSVGElement;
            if (line) {
              var x = parseFloat(axis.dataset.left) + parseFloat(axis.dataset.width) * now / parseFloat(axis.dataset.span);
              line.setAttribute("x1", String(x)); line.setAttribute("x2", String(x));
            }
            follow();
            $("slider").value = String(i);
            $("status").textContent = i === 0 ? "at the start: " + (RUN.initial || "no steps") + " (press → to step)"
              : "step " + i + " of " + n + ": " + steps[i - 1].text + (i === n ? " (the end)" : "");
          }
          // A chart wider than its frame (on a phone) scrolls so that the current state stays in view.
          function follow() {
            var figure = document.querySelector('figure.chart[data-chart="' + key() + '"]');
            var here = figure && figure.querySelector(".node.here");
            if (!here || figure.scrollWidth <= figure.clientWidth) { return; }
            var node = here.getBoundingClientRect(), frame = figure.getBoundingClientRect();
            figure.scrollLeft += (node.left + node.width / 2) - (frame.left + frame.width / 2);
          }
          function stop() {
            if (timer !== null) { clearInterval(timer); timer = null; }
            $("play").textContent = "▶ play"; $("play").setAttribute("aria-label", "play");
          }
          function play() {
            if (timer !== null) { stop(); return; }
            if (i === n) { show(0); }
            $("play").textContent = "⏸ pause"; $("play").setAttribute("aria-label", "pause");
            timer = setInterval(function () { if (i >= n) { stop(); } else { show(i + 1); } },
              parseInt($("speed").value, 10));
          }
          $("first").onclick = function () { stop(); show(0); };
          $("prev").onclick = function () { stop(); show(i - 1); };
          $("next").onclick = function () { stop(); show(i + 1); };
          $("last").onclick = function () { stop(); show(n); };
          $("play").onclick = play;
          $("speed").onchange = function () { if (timer !== null) { stop(); play(); } };
          $("slider").oninput = function () { stop(); show(parseInt($("slider").value, 10)); };
          $("style-flowchart").onclick = function () { setStyle("flowchart"); };
          $("style-state").onclick = function () { setStyle("state"); };
          if ($("scope-policy")) {
            $("scope-policy").onclick = function () { setScope("policy"); };
            $("scope-table").onclick = function () { setScope("table"); };
          }
          document.addEventListener("keydown", function (e) {
            var t = e.target && e.target.tagName;
            if (t === "INPUT" || t === "SELECT" || t === "TEXTAREA" || e.altKey || e.ctrlKey || e.metaKey) { return; }
            var moves = { ArrowRight: function () { show(i + 1); }, ArrowLeft: function () { show(i - 1); },
              Home: function () { show(0); }, End: function () { show(n); } };
            if (moves[e.key]) { stop(); moves[e.key](); e.preventDefault(); }
            else if (e.key === " " && t !== "BUTTON") { play(); e.preventDefault(); }
          });
          setStyle("flowchart");
        })();
        """
}
