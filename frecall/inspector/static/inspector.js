// The inspector's one script: the as_of slider. Everything works without it (the date
// field and the Redraw button); with it, moving the slider shows the date and letting go
// redraws the memory as of that time.
"use strict";
(function () {
  var slider = document.getElementById("as_of_slider");
  if (!slider) { return; }
  var field = document.getElementById(slider.dataset.target);
  function show() {
    var t = new Date(Number(slider.value) * 1000).toISOString().slice(0, 16);
    field.value = t;
    slider.setAttribute("aria-valuetext", t.replace("T", " ") + " UTC");
  }
  slider.addEventListener("input", show);
  slider.addEventListener("change", function () { show(); slider.form.submit(); });
})();
