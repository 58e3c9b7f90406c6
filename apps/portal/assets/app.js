// The portal's one script (docs/portal.md): no inline script anywhere, so the
// content security policy can forbid it. Claim links, charts, /chat streaming.
(function () {
  'use strict';
  var csrf = function () {
    var m = document.querySelector('meta[name="csrf-token"]');
    return m ? m.getAttribute('content') : '';
  };

  function onReady() {
    // Claim links carry their token in the fragment (never sent to a server): move it into the form.
    document.querySelectorAll('input[data-from-fragment]').forEach(function (el) {
      el.value = decodeURIComponent(location.hash.slice(1));
      history.replaceState(null, '', location.pathname);
    });
    document.querySelectorAll('button[data-confirm]').forEach(function (b) {
      b.addEventListener('click', function (e) {
        if (!window.confirm(b.getAttribute('data-confirm'))) e.preventDefault();
      });
    });
    document.querySelectorAll('.chart[data-series]').forEach(drawChart);
    var form = document.getElementById('chat-form');
    if (form) setUpChat(form);
  }

  function drawChart(el) {
    var s = JSON.parse(el.getAttribute('data-series'));
    if (!s.any) {
      el.textContent = 'No requests in this window yet.';
      el.className += ' muted';
      return;
    }
    if (typeof uPlot === 'undefined') return;
    var opts = {
      width: Math.max(300, el.clientWidth),
      height: 220,
      scales: {
        x: { time: true },
        y: {
          range: function (u, min, max) {
            return [0, Math.max(1, max)];
          },
        },
      },
      series: [{}, { label: el.getAttribute('data-label') || 'requests', stroke: '#2563eb', fill: 'rgba(37,99,235,0.12)', width: 2, points: { show: false } }],
      axes: [{}, {}],
      legend: { show: true },
    };
    new uPlot(opts, [s.t, s.requests], el);
  }

  function setUpChat(form) {
    var log = document.getElementById('chat-log');
    var input = document.getElementById('chat-input');
    var model = document.getElementById('chat-model');
    var decisions = document.querySelector('#chat-decisions tbody');
    var history = [];
    function bubble(role, text) {
      var d = document.createElement('div');
      d.className = 'msg ' + role;
      d.textContent = text;
      log.appendChild(d);
      log.scrollTop = log.scrollHeight;
      return d;
    }
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      var text = input.value.trim();
      if (!text) return;
      input.value = '';
      history.push({ role: 'user', content: text });
      bubble('user', text);
      var out = bubble('assistant', '');
      out.setAttribute('data-streaming', 'true');
      document.getElementById('chat-send').disabled = true;
      fetch('/chat/stream', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrf(), accept: 'text/event-stream' },
        body: JSON.stringify({ model: model.value, messages: history }),
        credentials: 'same-origin',
      })
        .then(function (res) {
          decisions.textContent = '';
          res.headers.forEach(function (v, k) {
            if (k.indexOf('x-llmgw-') === 0 || k === 'x-request-id') {
              var tr = document.createElement('tr');
              var th = document.createElement('th');
              th.textContent = k;
              var td = document.createElement('td');
              td.textContent = v;
              tr.appendChild(th);
              tr.appendChild(td);
              decisions.appendChild(tr);
            }
          });
          if (!res.ok || !res.body)
            return res.text().then(function (t) {
              out.className += ' error';
              try {
                out.textContent = JSON.parse(t).error.message;
              } catch (_) {
                out.textContent = 'HTTP ' + res.status;
              }
            });
          var reader = res.body.getReader();
          var dec = new TextDecoder();
          var buf = '';
          var pump = function () {
            return reader.read().then(function (r) {
              if (r.done) return;
              buf += dec.decode(r.value, { stream: true });
              var lines = buf.split('\n');
              buf = lines.pop();
              lines.forEach(function (line) {
                if (line.indexOf('data: ') !== 0) return;
                var data = line.slice(6).trim();
                if (data === '[DONE]') return;
                try {
                  var j = JSON.parse(data);
                  var delta = j.choices && j.choices[0] && j.choices[0].delta && j.choices[0].delta.content;
                  if (delta) {
                    out.textContent += delta;
                    log.scrollTop = log.scrollHeight;
                  }
                } catch (_) {
                  /* a partial or non-JSON line */
                }
              });
              return pump();
            });
          };
          return pump().then(function () {
            history.push({ role: 'assistant', content: out.textContent });
          });
        })
        .catch(function (err) {
          out.className += ' error';
          out.textContent = String(err);
        })
        .then(function () {
          out.setAttribute('data-streaming', 'false');
          document.getElementById('chat-send').disabled = false;
          input.focus();
        });
    });
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', onReady);
  else onReady();
})();
